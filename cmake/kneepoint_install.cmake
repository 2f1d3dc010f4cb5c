# `cmake --install build [--prefix P]`: the kneepoint CLI, the layer libraries with their headers
# (the source layout kept: core/hw_spec.h, sim/tile_plan.h, ...), a CMake package so that
#   find_package(kneepoint REQUIRED)
#   target_link_libraries(app PRIVATE kneepoint::sim)
# works from another project, the man page (built by help2man when it is installed) and the bash
# completion. Included once, at the end of the top-level CMakeLists.txt; the tests of the
# installed tree and of the docs' examples are added from here so that they live with it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KP_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/kneepoint)

# kneepoint::<layer> names kp_<layer>, in this build (aliases) and installed (export names).
set(KP_LAYERS core sim sim_systemc step_curve trainer curve_measure time_model study report)
set(KP_INSTALLED_LIBS "")
foreach(layer ${KP_LAYERS})
  if(TARGET kp_${layer})
    set_target_properties(kp_${layer} PROPERTIES EXPORT_NAME ${layer})
    add_library(kneepoint::${layer} ALIAS kp_${layer})
    list(APPEND KP_INSTALLED_LIBS kp_${layer})
  endif()
endforeach()

install(TARGETS ${KP_INSTALLED_LIBS} EXPORT kneepointTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS kneepoint EXPORT kneepointTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Headers of the libraries only: the CLI's own (tools/*.h) stay out, the study and report layers'
# (tools/study, tools/report, tools/validate) go in.
foreach(dir core sim models tools/study tools/report tools/validate)
  get_filename_component(parent ${dir} DIRECTORY)
  install(DIRECTORY ${KP_SOURCE_DIR}/${dir} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${parent}
          FILES_MATCHING PATTERN "*.h" PATTERN "measured" EXCLUDE)
endforeach()

install(EXPORT kneepointTargets NAMESPACE kneepoint:: DESTINATION ${KP_INSTALL_CMAKEDIR})
configure_package_config_file(${KP_SOURCE_DIR}/cmake/kneepointConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/kneepointConfig.cmake
                              INSTALL_DESTINATION ${KP_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/kneepointConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kneepointConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/kneepointConfigVersion.cmake
        DESTINATION ${KP_INSTALL_CMAKEDIR})

# Bash completion: the option lists come from the installed binary (kneepoint --complete VERB).
install(FILES ${KP_SOURCE_DIR}/tools/completion/kneepoint.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME kneepoint)

# The man page: help2man (Debian package help2man) from `kneepoint --help` and `--version`, with
# every verb's options appended (cmake/kneepoint_man.cmake). Without help2man there is no page.
find_program(KP_HELP2MAN help2man)
if(KP_HELP2MAN)
  set(KP_MAN_PAGE ${CMAKE_CURRENT_BINARY_DIR}/man/kneepoint.1)
  add_custom_command(
    OUTPUT ${KP_MAN_PAGE}
    COMMAND ${CMAKE_COMMAND} -DKNEEPOINT=$<TARGET_FILE:kneepoint> -DHELP2MAN=${KP_HELP2MAN}
            -DOUT=${KP_MAN_PAGE} -P ${KP_SOURCE_DIR}/cmake/kneepoint_man.cmake
    DEPENDS kneepoint ${KP_SOURCE_DIR}/cmake/kneepoint_man.cmake
    COMMENT "help2man: man/kneepoint.1")
  add_custom_target(kneepoint_man ALL DEPENDS ${KP_MAN_PAGE})
  install(FILES ${KP_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man not found: no man page (Debian: apt-get install help2man)")
endif()

add_subdirectory(${KP_SOURCE_DIR}/tests/install ${CMAKE_BINARY_DIR}/tests/install)
add_subdirectory(${KP_SOURCE_DIR}/tests/docs ${CMAKE_BINARY_DIR}/tests/docs)
