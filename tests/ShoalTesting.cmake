# Multi-PE tests run under build/bin/oshrun.  Tests of the spec and of the
# collectives (labels spec or coll) are also rerun on every *variant*: the
# same program started another way (SHOAL_TRANSPORTS=ucx over a UCX
# transport, Open MPI's mpirun with PMIx, ...).  Variants are defined in
# tests/variants/*.cmake with shoal_add_test_variant() when the build and the
# machine can run them.
set(SHOAL_OSHRUN ${PROJECT_BINARY_DIR}/bin/oshrun)
set(SHOAL_TEST_NPES 1 2 3 4)

# The label of the tests that are registered but left out of the default
# run: scripts/test.sh excludes it unless SHOAL_TEST_ALL=1 (the name is
# written there too).  They repeat, on a slow path, what the default run
# covers there already (docs/debugging.md, "Extended tests").
set(SHOAL_TEST_EXTENDED_LABEL extended)

# shoal_add_test_variant(NAME v LAUNCH cmd... [ENV VAR=val ...] [NPES n ...]
#                        [LABELS l ...] [SLOWER k] [DEFAULT regex])
# LAUNCH is the launcher command line; @N@ in it stands for the PE count.
# Tests get the variant only for the PE counts in NPES (default 2 3), and
# SLOWER times the test's timeout (default 2).  DEFAULT: only the variant's
# tests whose full name matches it run by default (the spec and coll reruns
# and tests/exit's), the others get the label ${SHOAL_TEST_EXTENDED_LABEL}
# (without DEFAULT, all run by default).
function(shoal_add_test_variant)
  cmake_parse_arguments(V "" "NAME;SLOWER;DEFAULT" "LAUNCH;ENV;NPES;LABELS" ${ARGN})
  if(NOT V_NPES)
    set(V_NPES 2 3)
  endif()
  if(NOT V_SLOWER)
    set(V_SLOWER 2)
  endif()
  set_property(GLOBAL PROPERTY SHOAL_VARIANT_${V_NAME}_SLOWER "${V_SLOWER}")
  set_property(GLOBAL APPEND PROPERTY SHOAL_TEST_VARIANTS ${V_NAME})
  set_property(GLOBAL PROPERTY SHOAL_VARIANT_${V_NAME}_LAUNCH "${V_LAUNCH}")
  set_property(GLOBAL PROPERTY SHOAL_VARIANT_${V_NAME}_ENV "${V_ENV}")
  set_property(GLOBAL PROPERTY SHOAL_VARIANT_${V_NAME}_NPES "${V_NPES}")
  set_property(GLOBAL PROPERTY SHOAL_VARIANT_${V_NAME}_LABELS "${V_LABELS}")
  set_property(GLOBAL PROPERTY SHOAL_VARIANT_${V_NAME}_DEFAULT "${V_DEFAULT}")
endfunction()

# shoal_variant_labels(v name out): the labels of variant v's test `name`
# (its LABELS, and ${SHOAL_TEST_EXTENDED_LABEL} where its DEFAULT leaves
# the test out); none for a name that is no variant.
function(shoal_variant_labels v name out)
  get_property(labels GLOBAL PROPERTY SHOAL_VARIANT_${v}_LABELS)
  get_property(default GLOBAL PROPERTY SHOAL_VARIANT_${v}_DEFAULT)
  if(default AND NOT name MATCHES "${default}")
    list(APPEND labels ${SHOAL_TEST_EXTENDED_LABEL})
  endif()
  set(${out} "${labels}" PARENT_SCOPE)
endfunction()

# shoal_add_launched_test(NAME name NPE n COMMAND exe args... [ENV ...]
#                         [LABELS ...] [TIMEOUT s] [WILL_FAIL] [NO_VARIANTS])
# Adds name.npN (oshrun -n N exe args) and, for spec/coll tests, one
# name.<variant>.npN per variant that runs N PEs.
function(shoal_add_launched_test)
  cmake_parse_arguments(T "WILL_FAIL;NO_VARIANTS" "NAME;NPE;TIMEOUT" "COMMAND;ENV;LABELS"
    ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  set(n ${T_NPE})
  add_test(NAME ${T_NAME}.np${n} COMMAND ${SHOAL_OSHRUN} -n ${n} ${T_COMMAND})
  set_tests_properties(${T_NAME}.np${n} PROPERTIES TIMEOUT ${T_TIMEOUT}
    ENVIRONMENT "${T_ENV}" LABELS "multi-pe;${T_LABELS}")
  if(T_WILL_FAIL)
    set_tests_properties(${T_NAME}.np${n} PROPERTIES WILL_FAIL TRUE)
  endif()
  if(T_NO_VARIANTS OR T_WILL_FAIL OR NOT ("spec" IN_LIST T_LABELS OR "coll" IN_LIST T_LABELS))
    return()
  endif()
  get_property(variants GLOBAL PROPERTY SHOAL_TEST_VARIANTS)
  foreach(v ${variants})
    get_property(v_npes GLOBAL PROPERTY SHOAL_VARIANT_${v}_NPES)
    if(NOT n IN_LIST v_npes)
      continue()
    endif()
    get_property(v_launch GLOBAL PROPERTY SHOAL_VARIANT_${v}_LAUNCH)
    get_property(v_env GLOBAL PROPERTY SHOAL_VARIANT_${v}_ENV)
    string(REPLACE "@N@" "${n}" launch "${v_launch}")
    set(name ${T_NAME}.${v}.np${n})
    shoal_variant_labels(${v} ${name} v_labels)
    add_test(NAME ${name} COMMAND ${launch} ${T_COMMAND})
    # A variant runs on a slower path: twice the time, or what it says.
    get_property(v_slower GLOBAL PROPERTY SHOAL_VARIANT_${v}_SLOWER)
    math(EXPR t "${T_TIMEOUT} * ${v_slower}")
    set_tests_properties(${name} PROPERTIES TIMEOUT ${t}
      ENVIRONMENT "${T_ENV};${v_env}" LABELS "multi-pe;${T_LABELS};variant;${v_labels}")
  endforeach()
endfunction()

# shoal_add_failure_test(NAME name TARGET exe MODE arg NPES n... [ENV v=x...]
#                        [RC nonzero|N] [MAX s] [REGEX re...] [NOT_REGEX re...]
#                        [LABELS ...])
# One ctest per PE count, name.npN: `oshrun -n N exe arg` must fail (status
# RC, default nonzero) with stderr matching every REGEX and no NOT_REGEX
# (tests/spec/expect_failure.py).  MAX (default 10) is how long the job takes
# on an idle machine: slower gets a note, not a failure; the job is taken
# for hung after SHOAL_TEST_HANG_S (or 3 x MAX, if longer), which TIMEOUT
# (the ctest limit) is raised to exceed.
set(SHOAL_TEST_HANG_S 120)
function(shoal_add_failure_test)
  cmake_parse_arguments(F "" "NAME;TARGET;MODE;RC;MAX;TIMEOUT"
    "NPES;ENV;REGEX;NOT_REGEX;OUT_REGEX;OUT_NOT_REGEX;LABELS" ${ARGN})
  if(NOT DEFINED F_RC)
    set(F_RC nonzero)
  endif()
  if(NOT F_MAX)
    set(F_MAX 10)
  endif()
  math(EXPR hang "3 * ${F_MAX}")
  if(hang LESS SHOAL_TEST_HANG_S)
    set(hang ${SHOAL_TEST_HANG_S})
  endif()
  math(EXPR min_timeout "${hang} + 30")
  if(NOT F_TIMEOUT OR F_TIMEOUT LESS min_timeout)
    set(F_TIMEOUT ${min_timeout})
  endif()
  set(extra "")
  foreach(e ${F_ENV})
    list(APPEND extra --env ${e})
  endforeach()
  foreach(r ${F_REGEX})
    list(APPEND extra --regex ${r})
  endforeach()
  foreach(r ${F_NOT_REGEX})
    list(APPEND extra --not-regex ${r})
  endforeach()
  foreach(r ${F_OUT_REGEX})
    list(APPEND extra --out-regex ${r})
  endforeach()
  foreach(r ${F_OUT_NOT_REGEX})
    list(APPEND extra --out-not-regex ${r})
  endforeach()
  foreach(n ${F_NPES})
    add_test(NAME ${F_NAME}.np${n}
      COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/spec/expect_failure.py
              --oshrun ${SHOAL_OSHRUN} -n ${n} --rc ${F_RC} --max-seconds ${F_MAX}
              --hang-seconds ${hang} ${extra}
              -- $<TARGET_FILE:${F_TARGET}> ${F_MODE})
    set_tests_properties(${F_NAME}.np${n} PROPERTIES TIMEOUT ${F_TIMEOUT}
      LABELS "multi-pe;${F_LABELS}")
  endforeach()
endfunction()

# shoal_add_pe_test(NAME name TARGET exe [NPES 1 2 3 4] [ARGS ...] [ENV VAR=val ...]
#                   [TIMEOUT s] [WILL_FAIL] [NO_VARIANTS] [LABELS ...])
# Adds one ctest per PE count: name.npN, run as `oshrun -n N exe args`
# (plus the variants, see above).
function(shoal_add_pe_test)
  cmake_parse_arguments(T "WILL_FAIL;NO_VARIANTS" "NAME;TARGET;TIMEOUT" "NPES;ARGS;ENV;LABELS"
    ${ARGN})
  if(NOT T_NPES)
    set(T_NPES ${SHOAL_TEST_NPES})
  endif()
  set(flags "")
  if(T_WILL_FAIL)
    list(APPEND flags WILL_FAIL)
  endif()
  if(T_NO_VARIANTS)
    list(APPEND flags NO_VARIANTS)
  endif()
  if(T_TIMEOUT)
    list(APPEND flags TIMEOUT ${T_TIMEOUT})
  endif()
  foreach(n ${T_NPES})
    shoal_add_launched_test(NAME ${T_NAME} NPE ${n} COMMAND $<TARGET_FILE:${T_TARGET}> ${T_ARGS}
      ENV ${T_ENV} LABELS ${T_LABELS} ${flags})
  endforeach()
endfunction()

# A test program linked against libshoal with the project's warning flags.
function(shoal_add_test_exe name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE shoal)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/common)
  shoal_warnings(${name})
endfunction()
