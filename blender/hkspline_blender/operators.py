"""The operators: import_anim.hkspline and export_anim.hkspline."""

from __future__ import annotations

import os
import traceback

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from . import core

_CLIP_ITEMS = []  # Blender needs the enum strings kept alive


def _clip_items(self, context):
    global _CLIP_ITEMS
    items = [("__member__", "Member field", "Use the 'member' property (or the file itself when not a binder)"),
             ("__all__", "All clips", "Import every clip of the binder (one action each)")]
    path = bpy.path.abspath(self.filepath) if self.filepath else ""
    if path and core.is_binder(path):
        items += [(n, n, f"binder member {n}") for n in core.binder_clips(path)]
    _CLIP_ITEMS = items
    return _CLIP_ITEMS


def _input_error(e: Exception) -> bool:
    """The library's errors (bad or missing input) and the add-on's own RuntimeErrors, as opposed to bugs."""
    if isinstance(e, (RuntimeError, OSError)):
        return True
    try:
        return isinstance(e, core.binding().Error)
    except RuntimeError:
        return False


COMPENDIUM_UI = "the Compendium field, compendium_path"


def _hk_error_text(e: Exception) -> str:
    """The report of an error. The binding's compendium advice names its Python argument ``compendium=`` (the
    library's names the CLI's --compendium): here it names the operator's property."""
    text = str(e)
    try:
        is_compendium = isinstance(e, core.binding().Error) and e.name == "compendium"
    except RuntimeError:
        is_compendium = False
    if is_compendium:
        text = text.replace("(compendium=)", f"({COMPENDIUM_UI})").replace("compendium= ", "Compendium ")
        text = text.replace("compendium=", COMPENDIUM_UI)
    return f"hkspline: {text}"


class _Progress:
    def __init__(self, context):
        self.wm = context.window_manager
        self.wm.progress_begin(0, 1000)

    def __call__(self, x: float) -> None:
        self.wm.progress_update(int(max(0.0, min(1.0, x)) * 1000))

    def end(self) -> None:
        self.wm.progress_end()


class IMPORT_OT_hkspline(bpy.types.Operator, ImportHelper):
    """Import a Havok animation (.hkx, or a clip of an .anibnd / .anibnd.dcx binder) with hkspline"""

    bl_idname = "import_anim.hkspline"
    bl_label = "Import Havok animation (hkspline)"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filename_ext = ".hkx"
    filter_glob: StringProperty(default="*.hkx;*.HKX;*.anibnd;*.dcx", options={"HIDDEN"})
    skeleton_path: StringProperty(name="Skeleton", description="Skeleton file, binder or folder (optional: "
                                  "default the skeleton beside the clip or in its binder)", subtype="FILE_PATH",
                                  default="")
    member: StringProperty(name="Member", description="Binder member (full or base name); '*' for every clip",
                           default="")
    clip: EnumProperty(name="Clip", description="Clip of the binder", items=_clip_items)
    compendium_path: StringProperty(name="Compendium", description="Compendium file, binder or folder "
                                    "(optional: default searched beside the clip)", subtype="FILE_PATH",
                                    default="")
    bone_rest: EnumProperty(name="Bone rest", items=[
        ("REFERENCE", "Reference pose", "Rest matrices = the Havok reference pose; channels relative to it (an "
         "untouched track is recognized within round-off at export)"),
        ("ORIGIN", "Havok values", "Every rest matrix the identity (bones at the origin in Edit Mode); the "
         "channels are the Havok local values themselves, bit for bit")], default="REFERENCE")
    use_record: BoolProperty(name="Keep record", description="Re-compress at import and keep the reconstruction "
                             "record on the action, so that an export gives untouched bones their original bytes",
                             default=True)

    def draw(self, context):
        layout = self.layout
        layout.prop(self, "clip")
        layout.prop(self, "member")
        layout.prop(self, "skeleton_path")
        layout.prop(self, "compendium_path")
        layout.prop(self, "bone_rest")
        layout.prop(self, "use_record")

    def execute(self, context):
        path = bpy.path.abspath(self.filepath)
        if not os.path.isfile(path):
            what = "is a folder: choose a clip (.hkx) or a binder in it" if os.path.isdir(path) else "no such file"
            self.report({"ERROR"}, f"hkspline: {path}: {what}")
            return {"CANCELLED"}
        member = self.member
        if not member and self.clip and self.clip != "__member__":
            member = "*" if self.clip == "__all__" else self.clip
        members = [member]
        if core.is_binder(path) and member == "*":
            members = core.binder_clips(path)
        elif core.is_binder(path) and not member:
            clips = core.binder_clips(path)
            if len(clips) != 1:
                self.report({"ERROR"}, f"hkspline: {os.path.basename(path)} is a binder of {len(clips)} clips: "
                            "pick one (Clip, or the member property; '*' for all)")
                return {"CANCELLED"}
            members = clips
        prog = _Progress(context)
        actions, failed = [], []
        try:
            for i, m in enumerate(members):
                try:
                    def sub(x, i=i):
                        prog((i + x) / len(members))
                    _obj, acts = core.import_file(context, path, m, bpy.path.abspath(self.skeleton_path)
                                                  if self.skeleton_path else "",
                                                  bpy.path.abspath(self.compendium_path) if self.compendium_path
                                                  else "", self.use_record, sub, self.bone_rest)
                    actions += acts
                except Exception as e:  # report and go on with the other clips
                    failed.append((m, e))
                    if not _input_error(e):
                        traceback.print_exc()  # not an input error: print the stack for a bug report
        finally:
            prog.end()
        for m, e in failed[:5]:
            self.report({"ERROR"} if not actions else {"WARNING"}, f"{m or os.path.basename(path)}: "
                        f"{_hk_error_text(e)}")
        if not actions:
            return {"CANCELLED"}
        self.report({"INFO"}, f"hkspline: imported {len(actions)} clip(s)" +
                    (f", {len(failed)} failed" if failed else ""))
        return {"FINISHED"}


_ROTQ = [("ORIGINAL", "Original", "The original clip's per-track quantizations"),
         ("40", "ThreeComp40", ""), ("48", "ThreeComp48", ""), ("24", "ThreeComp24", ""),
         ("16", "Polar32 16", ""), ("32", "Straight32", ""), ("uncompressed", "Uncompressed", "")]


class EXPORT_OT_hkspline(bpy.types.Operator, ExportHelper):
    """Export the active armature's action as a Havok animation (.hkx, or into a binder) with hkspline"""

    bl_idname = "export_anim.hkspline"
    bl_label = "Export Havok animation (hkspline)"
    bl_options = {"REGISTER", "PRESET"}

    filename_ext = ".hkx"
    check_extension = None  # a binder member keeps its own name
    filter_glob: StringProperty(default="*.hkx;*.HKX", options={"HIDDEN"})
    like_path: StringProperty(name="Like", description="The original clip, or BINDER:MEMBER (default: the clip "
                              "the action was imported from)", default="")
    into_binder: StringProperty(name="Into binder", description="Replace (or add) the member in this binder "
                                "(a .bak copy is kept)", subtype="FILE_PATH", default="")
    member: StringProperty(name="Member", description="Binder member name (default: the action's)", default="")
    compendium_path: StringProperty(name="Compendium", description="Compendium file, binder or folder of the "
                                    "original clip (optional: default the one given at import, else searched "
                                    "beside the clip)", subtype="FILE_PATH", default="")
    use_record: BoolProperty(name="Use record", description="Untouched bones keep their original bytes (the "
                             "record kept on the action at import)", default=True)
    snap_tolerance: FloatProperty(name="Untouched tolerance", description="A track within this of the original "
                                  "in every value counts as untouched and keeps its original values (0: off)",
                                  default=1e-5, min=0.0, precision=7)
    frames: IntProperty(name="Frames", description="Frames to write (0: the clip's, or up to the action's last "
                        "key when later)", default=0, min=0)
    tolerance: FloatProperty(name="Tolerance", description="Every part's tolerance (0: the CLI default, 0.001)",
                             default=0.0, min=0.0, precision=5)
    rotation_quantization: EnumProperty(name="Rotation quantization", items=_ROTQ, default="ORIGINAL")
    degree: IntProperty(name="Degree", description="Spline degree (0: default 3)", default=0, min=0, max=3)
    max_frames_per_block: IntProperty(name="Max frames per block", description="0: the original's", default=0,
                                      min=0, max=256)
    cpu: EnumProperty(name="CPU model", items=[("auto", "Auto", ""), ("intel", "Intel", ""),
                                              ("amd-zen", "AMD Zen", ""), ("exact", "Exact", "")], default="auto")
    solver: EnumProperty(name="Solver", items=[("havok", "Havok", ""), ("quality", "Quality", "")], default="havok")
    continuity: BoolProperty(name="Rotation continuity", default=False)
    no_guard: BoolProperty(name="No guard", default=False)
    game: EnumProperty(name="Game", items=[("ORIGINAL", "Original", "The original's SDK"),
                                           ("sekiro", "Sekiro", ""), ("eldenring", "Elden Ring", "")],
                       default="ORIGINAL")

    @classmethod
    def poll(cls, context):
        obj = context.active_object
        return obj is not None and obj.type == "ARMATURE" and obj.animation_data is not None and \
            obj.animation_data.action is not None

    def invoke(self, context, event):
        act = context.active_object.animation_data.action if self.poll(context) else None
        if act is not None and not self.filepath:
            self.filepath = core._clip_name(act.get("hkspline_path", act.name), act.get("hkspline_member", ""),
                                            0, 1) + ".hkx"
        return ExportHelper.invoke(self, context, event)

    def _options(self) -> dict:
        o = {}
        if self.tolerance > 0:
            o["tolerance"] = self.tolerance
        if self.rotation_quantization != "ORIGINAL":
            o["rotation_quantization"] = self.rotation_quantization
        if self.degree:
            o["degree"] = self.degree
        if self.max_frames_per_block >= 2:
            o["max_frames_per_block"] = self.max_frames_per_block
        if self.cpu != "auto":
            o["cpu"] = self.cpu
        if self.solver != "havok":
            o["solver"] = self.solver
        if self.continuity:
            o["continuity"] = True
        if self.no_guard:
            o["no_guard"] = True
        if self.game != "ORIGINAL":
            o["game"] = self.game
        return o

    def execute(self, context):
        obj = context.active_object
        action = obj.animation_data.action
        prog = _Progress(context)
        try:
            s = core.export_action(context, obj, action, bpy.path.abspath(self.filepath) if self.filepath else "",
                                   self.like_path, bpy.path.abspath(self.into_binder) if self.into_binder else "",
                                   self.member, self.use_record, self.snap_tolerance, self._options(), prog,
                                   self.frames, bpy.path.abspath(self.compendium_path) if self.compendium_path
                                   else "")
        except Exception as e:
            if not _input_error(e):
                traceback.print_exc()
            self.report({"ERROR"}, _hk_error_text(e))
            return {"CANCELLED"}
        finally:
            prog.end()
        for w in s.get("warnings", []):
            self.report({"WARNING"}, f"hkspline: {w}")
        self.report({"INFO"}, core.export_report(s))
        return {"FINISHED"}
