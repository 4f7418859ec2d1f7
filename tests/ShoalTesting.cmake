# shoal_add_pe_test(NAME name TARGET exe [NPES 1 2 3 4] [ARGS ...] [ENV VAR=val ...]
#                   [TIMEOUT s] [WILL_FAIL])
# Adds one ctest per PE count: name.npN, run as `oshrun -n N exe args`.
set(SHOAL_OSHRUN ${PROJECT_BINARY_DIR}/bin/oshrun)
set(SHOAL_TEST_NPES 1 2 3 4)
function(shoal_add_pe_test)
  cmake_parse_arguments(T "WILL_FAIL" "NAME;TARGET;TIMEOUT" "NPES;ARGS;ENV;LABELS" ${ARGN})
  if(NOT T_NPES)
    set(T_NPES ${SHOAL_TEST_NPES})
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  foreach(n ${T_NPES})
    add_test(NAME ${T_NAME}.np${n}
      COMMAND ${SHOAL_OSHRUN} -n ${n} $<TARGET_FILE:${T_TARGET}> ${T_ARGS})
    set_tests_properties(${T_NAME}.np${n} PROPERTIES TIMEOUT ${T_TIMEOUT}
      ENVIRONMENT "${T_ENV}" LABELS "multi-pe;${T_LABELS}")
    if(T_WILL_FAIL)
      set_tests_properties(${T_NAME}.np${n} PROPERTIES WILL_FAIL TRUE)
    endif()
  endforeach()
endfunction()

# A test program linked against libshoal with the project's warning flags.
function(shoal_add_test_exe name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE shoal)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/common)
  shoal_warnings(${name})
endfunction()
