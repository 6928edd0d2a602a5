# Unity batches for the big multi-file targets (core, CLI, GUI): with ORRERY_UNITY_BUILD on,
# each batch of sources compiles as one translation unit, so the headers every file includes (nlohmann/json,
# fmt, the standard library, Qt Widgets) are parsed and their inline code generated once per batch instead of
# once per file. CI builds from scratch and turns it on (docs/reliability.md, "CI time"); developers keep it
# off, since editing one file then recompiles only that file.
option(ORRERY_UNITY_BUILD "Compile the core, CLI and GUI in unity batches (cold builds)" OFF)
set(ORRERY_UNITY_BATCH_SIZE 8 CACHE STRING "Sources per unity batch when ORRERY_UNITY_BUILD is on")

function(orrery_unity target)
  if(NOT ORRERY_UNITY_BUILD)
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${ORRERY_UNITY_BATCH_SIZE})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC warns when a class of the batch has a member whose type is in an anonymous namespace, since in a
    # unity file the class is no longer defined in the main file. Each source is still a file of its own in
    # every other build, where the warning stays on.
    target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
  endif()
endfunction()
