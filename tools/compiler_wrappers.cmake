# oshcc / oshc++: one template, two flavours.  The build-tree copies (in
# build/bin) point at build/include and build/lib, so external suites can be
# built without installing; the installed copies find include/ and lib/
# relative to where they are installed.
# -static: can a program be linked statically against what libshoal.a
# needs?  pkg-config --static lists the dependencies where the .pc files are
# complete; Debian's pmix.pc lists none of libpmix.a's, so those that have
# static archives (libevent, hwloc, zlib) are tried as well.  Some have none
# on Debian (libmunge, and libudev under hwloc): then no static program with
# PMIx can be linked, and oshcc -static says so and what to do, instead of
# leaving the user pages of undefined references.
function(shoal_static_try what src flags out_ok out_why)
  try_compile(_ok ${CMAKE_CURRENT_BINARY_DIR}/static_probe_${what} ${src}
    COMPILE_DEFINITIONS -DPROBE_${what}
    LINK_OPTIONS -static
    LINK_LIBRARIES ${flags}
    OUTPUT_VARIABLE _out)
  set(_why "")
  if(NOT _ok)
    string(REGEX MATCHALL "cannot find -l[A-Za-z0-9_.+-]+" _miss "${_out}")
    string(REGEX MATCHALL "undefined reference to `[A-Za-z0-9_]+'" _undef "${_out}")
    list(REMOVE_DUPLICATES _miss)
    list(REMOVE_DUPLICATES _undef)
    list(TRANSFORM _miss REPLACE "cannot find -l(.*)" "there is no lib\\1.a")
    list(TRANSFORM _undef REPLACE "undefined reference to `([A-Za-z0-9_]+)'" "\\1")
    list(LENGTH _undef _nundef)
    if(_nundef GREATER 4)
      list(SUBLIST _undef 0 4 _undef)
      list(APPEND _undef "...")
    endif()
    list(JOIN _miss ", " _why)
    if(_undef)
      list(JOIN _undef ", " _u)
      if(_why)
        string(APPEND _why "; ")
      endif()
      string(APPEND _why "no static library defines ${_u}")
    endif()
    if(NOT _why)
      set(_why "the test link failed")
    endif()
  endif()
  set(${out_ok} ${_ok} PARENT_SCOPE)
  set(${out_why} "${_why}" PARENT_SCOPE)
endfunction()

function(shoal_static_probe)
  set(SHOAL_STATIC_OK yes)
  set(SHOAL_STATIC_EXTRA "")
  set(SHOAL_STATIC_ERROR "")
  set(src ${CMAKE_CURRENT_BINARY_DIR}/static_probe.c)
  file(WRITE ${src} "/* What libshoal.a pulls in from PMIx and UCX. */
#ifdef PROBE_PMIX
extern int PMIx_Init(void *, void *, unsigned long);
#define REF (void (*)(void))PMIx_Init
#else
extern int ucp_init_version(unsigned, unsigned, const void *, const void *, void **);
#define REF (void (*)(void))ucp_init_version
#endif
void (*volatile shoal_probe_ref)(void);
int main(void) { shoal_probe_ref = REF; return 0; }
")
  if(SHOAL_HAVE_UCX)
    shoal_static_try(UCX ${src} "${UCX_STATIC_LDFLAGS}" ok why)
    if(NOT ok)
      set(SHOAL_STATIC_OK no)
      set(SHOAL_STATIC_ERROR "this Shoal uses UCX (the network transport), and UCX cannot be linked statically here (${why}). Link without -static; or, for static programs, configure Shoal with -DSHOAL_WITH_UCX=OFF (they then reach PEs on one node only).")
    endif()
  endif()
  if(SHOAL_HAVE_PMIX AND SHOAL_STATIC_OK)
    shoal_static_try(PMIX ${src} "${PMIX_STATIC_LDFLAGS}" ok why)
    if(NOT ok)
      set(extra "")
      foreach(m libevent_core libevent_pthreads hwloc zlib)
        pkg_check_modules(_shoal_dep_${m} QUIET ${m})
        if(_shoal_dep_${m}_FOUND)
          list(APPEND extra ${_shoal_dep_${m}_STATIC_LDFLAGS})
        endif()
      endforeach()
      shoal_static_try(PMIX ${src} "${PMIX_STATIC_LDFLAGS};${extra}" ok why)
      if(ok)
        set(SHOAL_STATIC_EXTRA "${extra}")
      else()
        set(SHOAL_STATIC_OK no)
        set(SHOAL_STATIC_ERROR "this Shoal uses PMIx (for mpirun and srun), and PMIx cannot be linked statically here (${why}). Link without -static; or, for static programs, configure Shoal with -DSHOAL_WITH_PMIX=OFF (they then start under oshrun only).")
      endif()
    endif()
  endif()
  set(SHOAL_STATIC_OK ${SHOAL_STATIC_OK} CACHE INTERNAL "")
  set(SHOAL_STATIC_EXTRA "${SHOAL_STATIC_EXTRA}" CACHE INTERNAL "")
  set(SHOAL_STATIC_ERROR "${SHOAL_STATIC_ERROR}" CACHE INTERNAL "")
endfunction()

# Probed once per set of flags (a link or three at configure time).
set(_key "${SHOAL_HAVE_UCX};${SHOAL_HAVE_PMIX};${UCX_STATIC_LDFLAGS};${PMIX_STATIC_LDFLAGS};${CMAKE_C_COMPILER}")
if(NOT SHOAL_STATIC_KEY STREQUAL _key)
  shoal_static_probe()
  set(SHOAL_STATIC_KEY "${_key}" CACHE INTERNAL "")
  if(NOT SHOAL_STATIC_OK)
    message(STATUS "Shoal: oshcc -static unavailable: ${SHOAL_STATIC_ERROR}")
  endif()
endif()

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
  string(REPLACE ";" " " _extra "${SHOAL_STATIC_EXTRA}")
  string(APPEND SHOAL_WRAPPER_STATIC_LIBS " ${_extra}")
  set(SHOAL_WRAPPER_STATIC_OK ${SHOAL_STATIC_OK})
  set(SHOAL_WRAPPER_STATIC_ERROR "${SHOAL_STATIC_ERROR}")
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
