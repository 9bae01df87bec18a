# ctest blender_addon (label "blender"): the Blender add-on (blender/hkspline_blender, docs/BLENDER.md)
# packaged with the binding and the shared library, installed into a private user folder and run in
# headless Blender. Exit 77 (skipped, visibly) without blender; the corpus part is skipped, and says so,
# without the corpus. Included at the end of the top-level CMakeLists.txt (after the library targets).
if(HKS_TESTS AND NOT HKS_SANITIZE AND NOT HKS_FUZZ AND (TARGET hkspline_shared OR TARGET hkspline_py))
  if(TARGET hkspline_shared)
    set(HKS_ADDON_LIBRARY $<TARGET_FILE:hkspline_shared>)
  else()
    set(HKS_ADDON_LIBRARY $<TARGET_FILE:hkspline_py>)
  endif()
  add_test(NAME blender_addon COMMAND ${CMAKE_SOURCE_DIR}/tests/blender_addon/run.sh ${CMAKE_SOURCE_DIR}
    ${CMAKE_BINARY_DIR} $<TARGET_FILE:hkspline> $<TARGET_FILE:make_sample> ${HKS_ADDON_LIBRARY})
  set_tests_properties(blender_addon PROPERTIES LABELS blender TIMEOUT 600 SKIP_RETURN_CODE 77
    ENVIRONMENT "HKSPLINE_CORPUS_DEFAULT=${HKS_CORPUS_DEFAULT}")
endif()
