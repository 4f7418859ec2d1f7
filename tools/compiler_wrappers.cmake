# oshcc / oshc++: one template, two flavours.  The build-tree copies (in
# build/bin) point at build/include and build/lib, so external suites can be
# built without installing; the installed copies find include/ and lib/
# relative to where they are installed.
function(shoal_make_wrapper name env default incdir libdir out)
  set(SHOAL_WRAPPER_NAME ${name})
  set(SHOAL_WRAPPER_ENV ${env})
  set(SHOAL_WRAPPER_DEFAULT ${default})
  set(SHOAL_WRAPPER_INCDIR ${incdir})
  set(SHOAL_WRAPPER_LIBDIR ${libdir})
  # A sanitizer build of libshoal needs the sanitizer runtime linked into
  # the program first.
  string(REPLACE ";" " " SHOAL_WRAPPER_LDFLAGS "${SHOAL_SAN_FLAGS}")
  # A -static link takes libshoal.a, whose own dependencies come after it.
  set(SHOAL_WRAPPER_STATIC_LIBS "")
  if(SHOAL_HAVE_PMIX)
    string(REPLACE ";" " " _pmix "${PMIX_STATIC_LDFLAGS}")
    string(APPEND SHOAL_WRAPPER_STATIC_LIBS " ${_pmix}")
  endif()
  if(SHOAL_HAVE_UCX)
    string(REPLACE ";" " " _ucx "${UCX_STATIC_LDFLAGS}")
    string(APPEND SHOAL_WRAPPER_STATIC_LIBS " ${_ucx}")
  endif()
  configure_file(${CMAKE_CURRENT_LIST_DIR}/oshcc.in ${out} @ONLY
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                     WORLD_READ WORLD_EXECUTE)
endfunction()

get_filename_component(_cc_name ${CMAKE_C_COMPILER} NAME)
get_filename_component(_cxx_name ${CMAKE_CXX_COMPILER} NAME)
file(RELATIVE_PATH _inst_inc ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_INCLUDEDIR})
file(RELATIVE_PATH _inst_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
foreach(flavour build install)
  if(flavour STREQUAL build)
    set(_inc ${SHOAL_GEN_INCLUDE_DIR})
    set(_lib ${PROJECT_BINARY_DIR}/lib)
    set(_dir ${PROJECT_BINARY_DIR}/bin)
  else()
    set(_inc ${_inst_inc})
    set(_lib ${_inst_lib})
    set(_dir ${PROJECT_BINARY_DIR}/install-bin)
  endif()
  shoal_make_wrapper(oshcc SHOAL_CC ${CMAKE_C_COMPILER} ${_inc} ${_lib} ${_dir}/oshcc)
  shoal_make_wrapper(oshc++ SHOAL_CXX ${CMAKE_CXX_COMPILER} ${_inc} ${_lib} ${_dir}/oshc++)
endforeach()
install(PROGRAMS ${PROJECT_BINARY_DIR}/install-bin/oshcc ${PROJECT_BINARY_DIR}/install-bin/oshc++
  DESTINATION ${CMAKE_INSTALL_BINDIR})
