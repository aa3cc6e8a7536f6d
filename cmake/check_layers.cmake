# The layer rule (docs/architecture.md, "Build targets"), run by the build:
#   cmake -DROOT=<source dir> -P cmake/check_layers.cmake
# Each file under src/<layer>/ and each public header include/medreact/<h>.h
# may include, with #include "...", only headers of its own layer and of the
# layers below it:
#   core ← llm ← engine ← tools ← apps ← service ← cli
#                         tools ← mcp ← server, cli   (the MCP server's protocol core)
#                engine ← store ← apps         service ← server ← cli
# (store, the durable run store, is over engine and under apps and cli; tools
# never need it) and beside the stack: eval (over tools) and mockllm (over
# core), which only
# the CLI and the mock server's binary may use. A violation stops the build
# with the file, the line and the rule it breaks.

cmake_minimum_required(VERSION 3.25)

if(NOT DEFINED ROOT)
  message(FATAL_ERROR "check_layers.cmake: pass -DROOT=<source dir>")
endif()

# The public headers' layers.
set(PUBLIC_core status json cancel message http tool_spec)
set(PUBLIC_llm model openai text_protocol json_repair model_factory)
set(PUBLIC_engine tool tool_registry json_schema events trace agent run_state graph)

# What each layer may include.
set(MAY_core core)
set(MAY_llm core llm)
set(MAY_engine core llm engine)
set(MAY_store core llm engine store)
set(MAY_tools core llm engine tools)
set(MAY_apps core llm engine store tools apps)
set(MAY_service core llm engine store tools apps service)
set(MAY_mcp core llm engine tools mcp)
set(MAY_eval core llm engine tools eval)
set(MAY_mockllm core mockllm)
set(MAY_server core llm engine store tools mcp apps service server)
set(MAY_cli core llm engine store tools mcp apps service eval server cli)

set(KNOWN_LAYERS core llm engine store tools mcp apps service eval mockllm server cli)

# The layer of an #include "..." target, or "" when it is not one of ours.
function(layer_of_include path out)
  set(result "")
  if(path MATCHES "^medreact/([A-Za-z0-9_]+)\\.h$")
    set(name "${CMAKE_MATCH_1}")
    foreach(layer core llm engine)
      if(name IN_LIST PUBLIC_${layer})
        set(result ${layer})
      endif()
    endforeach()
    if(result STREQUAL "")
      set(result "unmapped:${name}")
    endif()
  elseif(path MATCHES "^([a-z]+)/")
    if(CMAKE_MATCH_1 IN_LIST KNOWN_LAYERS)
      set(result ${CMAKE_MATCH_1})
    endif()
  endif()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

set(problems "")
set(files_checked 0)

function(check_file file layer)
  file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "#[ \t]*include[ \t]*\"([^\"]+)\"")
      continue()
    endif()
    set(target "${CMAKE_MATCH_1}")
    layer_of_include("${target}" target_layer)
    if(target_layer STREQUAL "")
      continue()
    endif()
    file(RELATIVE_PATH rel "${ROOT}" "${file}")
    if(target_layer MATCHES "^unmapped:")
      set(problems "${problems}\n  ${rel}: includes \"${target}\", a public header with no layer (add it to cmake/check_layers.cmake)")
    elseif(NOT target_layer IN_LIST MAY_${layer})
      set(problems "${problems}\n  ${rel} (layer ${layer}) includes \"${target}\" (layer ${target_layer}): ${layer} may include only ${MAY_${layer}}")
    endif()
  endforeach()
  set(problems "${problems}" PARENT_SCOPE)
endfunction()

foreach(layer IN LISTS KNOWN_LAYERS)
  file(GLOB_RECURSE files "${ROOT}/src/${layer}/*.h" "${ROOT}/src/${layer}/*.cc")
  foreach(file IN LISTS files)
    # The mock server's binary is its own target over the mockllm library.
    check_file("${file}" ${layer})
    math(EXPR files_checked "${files_checked} + 1")
  endforeach()
endforeach()

file(GLOB public_headers "${ROOT}/include/medreact/*.h")
foreach(file IN LISTS public_headers)
  get_filename_component(name "${file}" NAME_WE)
  layer_of_include("medreact/${name}.h" layer)
  if(layer MATCHES "^unmapped:")
    file(RELATIVE_PATH rel "${ROOT}" "${file}")
    set(problems "${problems}\n  ${rel}: a public header with no layer (add it to cmake/check_layers.cmake)")
    continue()
  endif()
  check_file("${file}" ${layer})
  math(EXPR files_checked "${files_checked} + 1")
endforeach()

# Sources outside the known layers would escape the rule.
file(GLOB stray LIST_DIRECTORIES true RELATIVE "${ROOT}/src" "${ROOT}/src/*")
foreach(dir IN LISTS stray)
  if(IS_DIRECTORY "${ROOT}/src/${dir}" AND NOT dir IN_LIST KNOWN_LAYERS)
    set(problems "${problems}\n  src/${dir}/: a folder that is no layer (add it to cmake/check_layers.cmake and CMakeLists.txt)")
  endif()
endforeach()

if(NOT problems STREQUAL "")
  message(FATAL_ERROR "layer rule broken (core ← llm ← engine ← tools ← apps ← cli; store over engine, under apps; eval over tools, mockllm over core):${problems}")
endif()
if(files_checked EQUAL 0)
  message(FATAL_ERROR "check_layers.cmake: no files under ${ROOT}/src: wrong ROOT?")
endif()
