"""hkspline for Blender: open and save Havok spline-compressed animations (Sekiro, Elden Ring, ...) directly.

Operators: ``import_anim.hkspline`` (File > Import > Havok animation) and ``export_anim.hkspline``
(File > Export > Havok animation). Built on the ``hkspline`` Python binding (docs/PYTHON.md, docs/BLENDER.md).
"""

bl_info = {
    "name": "hkspline: Havok animation (.hkx, .anibnd)",
    "author": "hkspline",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "File > Import / Export > Havok animation (hkspline)",
    "description": "Import and export Havok spline-compressed animations exactly, with the reconstruction record",
    "category": "Import-Export",
}

if "bpy" in locals():  # reload support
    import importlib
    importlib.reload(convert)  # noqa: F821
    importlib.reload(core)  # noqa: F821
    importlib.reload(operators)  # noqa: F821
else:
    from . import convert, core, operators  # noqa: F401

import bpy  # noqa: E402


def _menu_import(self, context):
    self.layout.operator(operators.IMPORT_OT_hkspline.bl_idname, text="Havok animation (.hkx, .anibnd) [hkspline]")


def _menu_export(self, context):
    self.layout.operator(operators.EXPORT_OT_hkspline.bl_idname, text="Havok animation (.hkx, .anibnd) [hkspline]")


_CLASSES = (operators.IMPORT_OT_hkspline, operators.EXPORT_OT_hkspline)


def register():
    for c in _CLASSES:
        bpy.utils.register_class(c)
    bpy.types.TOPBAR_MT_file_import.append(_menu_import)
    bpy.types.TOPBAR_MT_file_export.append(_menu_export)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(_menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(_menu_import)
    for c in reversed(_CLASSES):
        bpy.utils.unregister_class(c)
