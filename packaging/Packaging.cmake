# Install rules and a Debian package (cpack -G DEB).
include(GNUInstallDirs)
install(FILES "${PROJECT_SOURCE_DIR}/resources/io.github.orrery.Orrery.desktop" DESTINATION "${CMAKE_INSTALL_DATADIR}/applications")
install(FILES "${PROJECT_SOURCE_DIR}/resources/orrery.svg" DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps"
        RENAME io.github.orrery.Orrery.svg)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/data/" DESTINATION "${CMAKE_INSTALL_DATADIR}/orrery")

set(CPACK_PACKAGE_NAME "orrery")
set(CPACK_PACKAGE_VENDOR "Orrery")
set(CPACK_PACKAGE_CONTACT "orrery@localhost")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
include(CPack)
