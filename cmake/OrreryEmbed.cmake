# orrery_embed(<target> <symbol> <file>): compiles <file> into <target> as
# `extern const std::string_view <symbol>` (namespace orrery::embedded), so the
# binaries run on their default data with no install tree.
function(orrery_embed target symbol file)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/embedded/${symbol}.cpp")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DIN=${file} -DOUT=${out} -DSYMBOL=${symbol} -P ${PROJECT_SOURCE_DIR}/cmake/EmbedFile.cmake
    DEPENDS "${file}" "${PROJECT_SOURCE_DIR}/cmake/EmbedFile.cmake"
    COMMENT "Embedding ${file}")
  target_sources(${target} PRIVATE "${out}")
  # One array per file under the same local name: a unity batch must not hold two of them (and a big
  # initialiser gains nothing from sharing a translation unit).
  set_source_files_properties("${out}" PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()
