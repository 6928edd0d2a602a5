# Install rules and the Debian package (cpack -G DEB; scripts/package builds it). docs/packaging.md
# lists what the package holds. The executables and orrery_sqlite have their install rules next to
# their targets (app/CMakeLists.txt).
include(GNUInstallDirs)
if(ORRERY_WITH_GUI)
  # Without the GUI there is no program for the desktop entry to start.
  install(FILES "${PROJECT_SOURCE_DIR}/resources/io.github.orrery.Orrery.desktop" DESTINATION "${CMAKE_INSTALL_DATADIR}/applications")
  install(FILES "${PROJECT_SOURCE_DIR}/resources/io.github.orrery.Orrery.metainfo.xml" DESTINATION "${CMAKE_INSTALL_DATADIR}/metainfo")
  # The desktop file's Icon= is the application id, so the icon is installed under that name.
  install(FILES "${PROJECT_SOURCE_DIR}/resources/orrery.svg" DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps"
          RENAME io.github.orrery.Orrery.svg)
endif()
# The programs carry the catalog, model library and default scenario compiled in (cmake/OrreryEmbed.cmake)
# and need no data directory; these copies are for people to read and to start scenarios from.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/data/" DESTINATION "${CMAKE_INSTALL_DATADIR}/orrery")

# Man pages, generated from the programs' own --help by help2man (packaging/gen-man), gzipped as Debian
# installs them. Sanitizer builds are never packaged, so they skip the pages.
if(ORRERY_SANITIZE)
  set(ORRERY_MAN_PAGES_DEFAULT OFF)
else()
  set(ORRERY_MAN_PAGES_DEFAULT ON)
endif()
option(ORRERY_MAN_PAGES "Generate the man pages with help2man" ${ORRERY_MAN_PAGES_DEFAULT})
if(ORRERY_MAN_PAGES)
  find_program(HELP2MAN_PROGRAM help2man)
  if(NOT HELP2MAN_PROGRAM)
    message(FATAL_ERROR "help2man not found: run scripts/setup, or configure with -DORRERY_MAN_PAGES=OFF")
  endif()
  set(gen_man "${PROJECT_SOURCE_DIR}/packaging/gen-man")
  set(man_dir "${PROJECT_BINARY_DIR}/man")
  set(man_pages "${man_dir}/orrery-cli.1.gz")
  add_custom_command(
    OUTPUT "${man_dir}/orrery-cli.1.gz"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${man_dir}"
    COMMAND "${gen_man}" "$<TARGET_FILE:orrery-cli>" "${man_dir}/orrery-cli.1.gz"
            "plan, provision and simulate DL training on heterogeneous GPU clusters, headless" --subcommands
            --include "${PROJECT_SOURCE_DIR}/packaging/orrery-cli.h2m"
    DEPENDS orrery-cli "${gen_man}" "${PROJECT_SOURCE_DIR}/packaging/orrery-cli.h2m"
    COMMENT "Generating the orrery-cli man page from its --help"
    VERBATIM)
  if(ORRERY_WITH_GUI)
    list(APPEND man_pages "${man_dir}/orrery.1.gz")
    # offscreen: QApplication needs a platform plugin before it can print --help, and the build may
    # have no display. The GUI's --version says "Orrery", not the command name, hence --version-string.
    add_custom_command(
      OUTPUT "${man_dir}/orrery.1.gz"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${man_dir}"
      COMMAND "${CMAKE_COMMAND}" -E env QT_QPA_PLATFORM=offscreen
              "${gen_man}" "$<TARGET_FILE:orrery>" "${man_dir}/orrery.1.gz"
              "plan, provision and simulate DL training on heterogeneous GPU clusters" --version-string "${PROJECT_VERSION}"
              --include "${PROJECT_SOURCE_DIR}/packaging/orrery.h2m"
      DEPENDS orrery "${gen_man}" "${PROJECT_SOURCE_DIR}/packaging/orrery.h2m"
      COMMENT "Generating the orrery man page from its --help"
      VERBATIM)
  endif()
  add_custom_target(man ALL DEPENDS ${man_pages})
  install(FILES ${man_pages} DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
endif()

set(CPACK_PACKAGE_NAME "orrery")
set(CPACK_PACKAGE_VENDOR "Orrery")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "Orrery maintainers <maintainers@users.noreply.a-seed-3d52693a.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "plan and simulate DL training on heterogeneous GPU clusters")
# CPack turns the blank line into the " ." paragraph separator of a Debian long description.
set(CPACK_PACKAGE_DESCRIPTION
    "Orrery plans and visualises the training of deep-learning jobs on heterogeneous GPU clusters.
Given a cluster (nodes of mixed GPU types, links, prices) and a mix of training jobs (language
models with their hyper-parameters, or a real trace), it estimates per-GPU memory and throughput,
provisions cost-efficient GPU sets, simulates the cluster under many scheduling policies, stores
every run in SQLite and charts the results.

The package holds the desktop application (orrery), its headless counterpart (orrery-cli), an
SQLite extension that gives stored runs plain tables (/usr/lib/orrery/orrery_sqlite), the GPU
catalog, model library and example scenarios (/usr/share/orrery).")
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
# Depends: computed by dpkg-shlibdeps from the libraries the binaries link (Qt, fmt, SQLite, CBC/CLP).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# Debug builds' symbols would make the package several times larger; the build tree keeps them.
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
include(CPack)
