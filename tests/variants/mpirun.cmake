# The PMIx bootstrap: the spec and collectives suites started by Open MPI's
# mpirun instead of oshrun (boot/pmix/boot_pmix.c).  Only in a build with
# PMIx, and only when `mpirun` is Open MPI's (MPICH's has no PMIx server).
#   --allow-run-as-root   CI runs as root; harmless otherwise
#   --oversubscribe       more PEs than cores (2-core machines)
#   --bind-to none        like oshrun: Open MPI would pin each PE to a core
# SHOAL_MPIRUN (the command up to the PE count, without -np) and
# SHOAL_MPIRUN_ENV (what its tests' environment needs) are also used by
# tests/pmix.
if(SHOAL_HAVE_PMIX)
  find_program(SHOAL_MPIRUN_EXE NAMES mpirun)
  if(SHOAL_MPIRUN_EXE AND NOT DEFINED CACHE{SHOAL_MPIRUN_IS_OMPI})
    execute_process(COMMAND ${SHOAL_MPIRUN_EXE} --version OUTPUT_VARIABLE _v ERROR_VARIABLE _v
      RESULT_VARIABLE _rc TIMEOUT 20)
    if(_rc EQUAL 0 AND _v MATCHES "Open MPI")
      set(SHOAL_MPIRUN_IS_OMPI TRUE CACHE INTERNAL "mpirun is Open MPI's")
    else()
      set(SHOAL_MPIRUN_IS_OMPI FALSE CACHE INTERNAL "mpirun is Open MPI's")
    endif()
  endif()
  if(SHOAL_MPIRUN_EXE AND SHOAL_MPIRUN_IS_OMPI)
    set(SHOAL_MPIRUN ${SHOAL_MPIRUN_EXE} --allow-run-as-root --oversubscribe --bind-to none)
    # An ASan build's PEs would report libpmix's own leaks at exit.
    set(SHOAL_MPIRUN_ENV "")
    if(SHOAL_ASAN)
      set(SHOAL_MPIRUN_ENV LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/pmix/lsan.supp)
    endif()
    shoal_add_test_variant(NAME mpirun LAUNCH ${SHOAL_MPIRUN} -np @N@ ENV ${SHOAL_MPIRUN_ENV}
      NPES 2 3 LABELS pmix)
  else()
    message(STATUS "Shoal tests: no Open MPI mpirun found: the mpirun variant and tests/pmix "
                   "are skipped (Debian: openmpi-bin)")
  endif()
endif()
