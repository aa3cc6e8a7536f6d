# The installed package works for a program outside the repository (README,
# "Using the library"): `cmake --install` into a fresh prefix, then
# find_package(medreact) from tests/install/consumer/, build it, run it; and
# the installed binary runs and has its data where core/data_dir.h looks.
# Run by CTest (CMakeLists.txt, install block) as
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=...
#         -DCXX_COMPILER=... -DLIBDIR=lib [-DLAUNCHER=ccache] [-DCONSUMER_FLAGS=...] -P install_test.cmake
# Any failure is FATAL_ERROR with the step's output.
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER LIBDIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "install_test.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# 1. Install.
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(file include/medreact/agent.h include/medreact/tool_registry.h
             ${LIBDIR}/cmake/medreact/medreact-config.cmake ${LIBDIR}/cmake/medreact/medreact-config-version.cmake
             ${LIBDIR}/cmake/medreact/medreact-targets.cmake ${LIBDIR}/libmedreact_core.a
             ${LIBDIR}/libmedreact_apps.a
             bin/medreact bin/medreact-mock-llm
             share/medreact/data/growth/cdc/wtage.csv share/medreact/data/prompts/cxr_system.md
             share/medreact/data/guidelines/extras.json
             share/doc/medreact/LICENSE share/doc/medreact/NOTICE share/doc/medreact/README.md)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "not installed: ${file}")
  endif()
endforeach()
# Headers of the implementation stay out: the public ones only.
file(GLOB_RECURSE headers RELATIVE ${prefix}/include ${prefix}/include/*)
foreach(h IN LISTS headers)
  if(NOT h MATCHES "^medreact/[a-z_]+\\.h$")
    message(FATAL_ERROR "installed a header that is not public: include/${h}")
  endif()
endforeach()

# 2. A consumer: configure with only the prefix, build, run.
set(launcher_args)
if(LAUNCHER)
  set(launcher_args -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
if(CONSUMER_FLAGS)  # sanitizer / fuzzing builds: the libraries need their runtimes
  list(APPEND launcher_args "-DCMAKE_CXX_FLAGS=${CONSUMER_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_FLAGS}")
endif()
run("configuring the consumer" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/consumer -B ${WORK_DIR}/consumer
    -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX_COMPILER} ${launcher_args}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
run("building the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run("running the consumer" ${WORK_DIR}/consumer/consumer)
foreach(expected "tool: 27.1" "agent: finished: BMI 27.1" "data: ${prefix}/share/medreact/data")
  string(FIND "${last_output}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the consumer did not print '${expected}':\n${last_output}")
  endif()
endforeach()

# 3. The installed binary runs from anywhere and reads its tables (growth).
set(args [[{"reference": "who", "indicator": "weight_for_age", "sex": "female", "age_months": 12, "value": 7.0}]])
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=MEDREACT_DATA_DIR ${prefix}/bin/medreact calc growth_zscore
                        --args ${args}
                WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\"z\"")
  message(FATAL_ERROR "the installed medreact gave no z-score (${rc}):\n${out}\n${err}")
endif()
message(STATUS "install test: installed, consumer built and ran, installed binary ran")
file(REMOVE_RECURSE ${WORK_DIR})
