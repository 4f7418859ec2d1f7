# Install-side discovery: pkg-config (shoal.pc) and CMake (find_package(Shoal)).
include(CMakePackageConfigHelpers)
# shoal.pc locates the prefix from its own directory: relocatable.
file(RELATIVE_PATH SHOAL_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REPLACE ";" " " SHOAL_PC_SAN_FLAGS "${SHOAL_SAN_FLAGS}")
# What a static link of libshoal.a needs besides (pkg-config --static).
set(SHOAL_PC_REQUIRES_PRIVATE "")
if(SHOAL_HAVE_PMIX)
  string(APPEND SHOAL_PC_REQUIRES_PRIVATE " pmix")
endif()
set(SHOAL_PC_LIBS_PRIVATE "")
if(SHOAL_HAVE_UCX AND SHOAL_UCX_PCDIR)
  # A UCX outside the system's directories: its own flags and run path,
  # for the user's pkg-config would find another ucx.pc, or none.
  list(JOIN UCX_STATIC_LDFLAGS " " _ucx_static)
  set(SHOAL_PC_LIBS_PRIVATE "-Wl,-rpath,${UCX_LIBDIR} ${_ucx_static}")
elseif(SHOAL_HAVE_UCX)
  string(APPEND SHOAL_PC_REQUIRES_PRIVATE " ucx")
endif()
string(STRIP "${SHOAL_PC_REQUIRES_PRIVATE}" SHOAL_PC_REQUIRES_PRIVATE)
configure_file(${PROJECT_SOURCE_DIR}/cmake/shoal.pc.in ${PROJECT_BINARY_DIR}/shoal.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/shoal.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(EXPORT ShoalTargets NAMESPACE Shoal:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Shoal)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ShoalConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ShoalConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Shoal)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ShoalConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ShoalConfig.cmake ${PROJECT_BINARY_DIR}/ShoalConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Shoal)
