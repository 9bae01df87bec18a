# Headless Blender round trip of an hkspline glTF export (docs/GLTF.md "Blender").
#
#   blender -b --factory-startup --python tests/blender/roundtrip.py -- \
#       IN.glb OUT.glb [--heuristic TEMPERANCE|BLENDER|FORTUNE] [--fps N] [--edit-bone NAME]
#
# Imports IN.glb with Blender's glTF importer (only bone_heuristic set; every other
# setting is Blender's default), optionally changes one bone's keys (a modder's edit),
# and exports OUT.glb with the exporter's defaults (format from the extension).
# --fps N sets the scene frame rate before the import (0 or absent: Blender's default,
# 24). Prints one line "ROUNDTRIP ok ..." on success; any failure exits non-zero.
import sys

import bpy


def main(argv):
    args = argv[argv.index("--") + 1:] if "--" in argv else []
    if len(args) < 2:
        print("usage: ... -- IN.glb OUT.glb [--heuristic H] [--fps N] [--edit-bone NAME]")
        return 2
    src, dst = args[0], args[1]
    heuristic, fps, edit = "TEMPERANCE", 0, None
    i = 2
    while i < len(args):
        if args[i] == "--heuristic":
            heuristic = args[i + 1]
        elif args[i] == "--fps":
            fps = float(args[i + 1])
        elif args[i] == "--edit-bone":
            edit = args[i + 1]
        else:
            print("unknown argument", args[i])
            return 2
        i += 2
    # an empty scene (factory startup has a cube, a camera and a light)
    bpy.ops.object.select_all(action="SELECT")
    bpy.ops.object.delete()
    scene = bpy.context.scene
    if fps > 0:
        # Blender's rate is fps / fps_base with a whole fps (0.25 fps: 1 / 4)
        whole = max(1, int(round(fps)))
        scene.render.fps = whole
        scene.render.fps_base = whole / fps
    bpy.ops.import_scene.gltf(filepath=src, bone_heuristic=heuristic)
    edited = 0
    if edit:
        for ob in bpy.data.objects:
            ad = ob.animation_data
            if ob.type != "ARMATURE" or not ad or not ad.action:
                continue
            path = 'pose.bones["%s"].location' % edit
            for fc in ad.action.fcurves:
                if fc.data_path == path:
                    for kp in fc.keyframe_points:
                        kp.co[1] += 0.05
                        kp.handle_left[1] += 0.05
                        kp.handle_right[1] += 0.05
                    fc.update()
                    edited += 1
        if not edited:
            print("ROUNDTRIP error: no location keys of bone", edit)
            return 1
    fmt = "GLB" if dst.lower().endswith(".glb") else "GLTF_SEPARATE"
    bpy.ops.export_scene.gltf(filepath=dst, export_format=fmt)
    print("ROUNDTRIP ok heuristic=%s fps=%g frames=%d..%d edited=%d" %
          (heuristic, scene.render.fps / scene.render.fps_base, scene.frame_start, scene.frame_end, edited))
    return 0


if __name__ == "__main__":
    rc = 1
    try:
        rc = main(sys.argv)
    except Exception as e:  # a Blender failure must fail the caller
        import traceback
        traceback.print_exc()
        print("ROUNDTRIP error:", e)
    sys.stdout.flush()
    # Blender's own exit status is 0 whatever a script does: exit with ours
    import os
    os._exit(rc)
