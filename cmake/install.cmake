# `cmake --install build --prefix P`: public headers, libqrt.a and libqrt.so, the
# CMake package (find_package(qrt) -> qrt::qrt, qrt::qrt_static), pkg-config files
# and the CLI.
include(CMakePackageConfigHelpers)

set(QRT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/qrt)
install(FILES include/qrt/qrt.h include/qrt/qrt.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/qrt)
install(TARGETS qrt qrt_shared EXPORT qrtTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS qrt_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set_target_properties(qrt PROPERTIES EXPORT_NAME qrt_static)
set_target_properties(qrt_shared PROPERTIES EXPORT_NAME qrt)
install(EXPORT qrtTargets NAMESPACE qrt:: DESTINATION ${QRT_CMAKE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/qrtConfig.cmake.in
  ${PROJECT_BINARY_DIR}/qrtConfig.cmake INSTALL_DESTINATION ${QRT_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/qrtConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/qrtConfig.cmake ${PROJECT_BINARY_DIR}/qrtConfigVersion.cmake
        DESTINATION ${QRT_CMAKE_DIR})

# pkg-config: qrt (shared) and qrt-static (with the dependencies a static link needs).
if(QRT_WITH_ONNX)
  set(QRT_PC_PRIVATE_LIBS "-ldnnl -lonnx_proto -lprotobuf -lgomp")
else()
  set(QRT_PC_PRIVATE_LIBS "-ldnnl -lgomp")
endif()
file(RELATIVE_PATH QRT_PC_TO_PREFIX /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
configure_file(${PROJECT_SOURCE_DIR}/cmake/qrt.pc.in ${PROJECT_BINARY_DIR}/qrt.pc @ONLY)
configure_file(${PROJECT_SOURCE_DIR}/cmake/qrt-static.pc.in ${PROJECT_BINARY_DIR}/qrt-static.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/qrt.pc ${PROJECT_BINARY_DIR}/qrt-static.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
