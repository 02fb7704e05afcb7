# Registers a GoogleTest program with ctest: register_gtest_program(target LABEL label
# [ENVIRONMENT var=value...] [DISCOVERY_TIMEOUT seconds]).
#
# Note [Sharded GoogleTest runs]
# A normal build registers every test on its own (gtest_discover_tests): ctest runs each in a
# process of its own, so a failure names its test and nothing leaks from one test into the
# next. That costs a process start per test — loading libtorch, for the plugin — which a
# sanitizer multiplies: under ASan the ~850 starts were most of the sanitizer job's time. A
# sanitized build (ASCEND_SIM_SANITIZE) therefore registers the program as
# ASCEND_SIM_GTEST_SHARDS shard tests ("<target>/shard<i>"), each running its share of the
# tests (GoogleTest's GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX) in one process; a failed
# shard's output names the failed test. GTEST_FILTER from the environment narrows every
# shard (ci/sanitize.sh's ThreadSanitizer run). Programs that run themselves as child
# processes must clear the sharding variables for the child (sim_test_util.h: runSelf).
# ASCEND_SIM_GTEST_SHARDS in the environment at configure time asks for shards in a normal
# build too: ci/test.sh sets it (the README's test command then starts 12 test processes rather
# than ~850, about 40 s instead of 3 minutes); a build configured without it keeps one ctest
# test per GoogleTest, for `ctest -R`.
include_guard(GLOBAL)
include(GoogleTest)
set(ASCEND_SIM_GTEST_SHARDS 6 CACHE STRING "ctest shards per GoogleTest program in sanitized builds")

function(register_gtest_program target)
  cmake_parse_arguments(ARG "" "LABEL;DISCOVERY_TIMEOUT" "ENVIRONMENT" ${ARGN})
  if(NOT ARG_DISCOVERY_TIMEOUT)
    set(ARG_DISCOVERY_TIMEOUT 60)
  endif()
  set(shards ${ASCEND_SIM_GTEST_SHARDS})
  if(DEFINED ENV{ASCEND_SIM_GTEST_SHARDS})
    set(shards $ENV{ASCEND_SIM_GTEST_SHARDS})
  endif()
  if(NOT ASCEND_SIM_SANITIZE AND NOT DEFINED ENV{ASCEND_SIM_GTEST_SHARDS})
    gtest_discover_tests(${target} DISCOVERY_TIMEOUT ${ARG_DISCOVERY_TIMEOUT}
                         PROPERTIES LABELS ${ARG_LABEL} ENVIRONMENT "${ARG_ENVIRONMENT}")
    return()
  endif()
  math(EXPR last "${shards} - 1")
  foreach(index RANGE 0 ${last})
    add_test(NAME ${target}/shard${index} COMMAND ${target})
    set_tests_properties(${target}/shard${index} PROPERTIES LABELS ${ARG_LABEL} ENVIRONMENT
      "GTEST_TOTAL_SHARDS=${shards};GTEST_SHARD_INDEX=${index};${ARG_ENVIRONMENT}")
  endforeach()
endfunction()
