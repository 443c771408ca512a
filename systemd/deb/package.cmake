# The Debian package, made by CPack's DEB generator from the install rules
# (CMakeLists.txt, systemd/install.cmake). Included at the end of CMakeLists.txt.
#
#   cmake --workflow --preset deb     (CMakePresets.json: configures build-deb/ for
#                                      /usr, builds it, makes build-deb/nvmond_<version>_<arch>.deb)
#
# What this adds to the install rules: the maintainer scripts and the conffile
# list (systemd/deb/), /usr/share/doc/nvmond/changelog.gz (docs/changelog) and
# copyright. The library dependencies come from dpkg-shlibdeps; the two written
# here are the maintainer scripts' own (systemd-sysusers, systemd-tmpfiles).
# docs/installing.md#the-debian-package says what it installs and does.

# The package's version is the project's. -DNVMOND_DEB_VERSION=V gives another
# (tests/integration/test_deb.sh: the previous version's package, a lower one).
if(NOT NVMOND_DEB_VERSION)
  set(NVMOND_DEB_VERSION "${PROJECT_VERSION}")
endif()

set(nvmond_deb_dir ${CMAKE_CURRENT_LIST_DIR})

# /usr/share/doc/nvmond/changelog.gz: a native package's changelog (Debian policy
# 12.7), compressed as dh_compress does (gzip -9n: no name, no time stamp).
add_custom_command(
  OUTPUT ${CMAKE_BINARY_DIR}/deb/changelog.gz
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/deb
  COMMAND sh -c "gzip -9n -c \"$0\" > \"$1\"" ${CMAKE_SOURCE_DIR}/docs/changelog
          ${CMAKE_BINARY_DIR}/deb/changelog.gz
  DEPENDS ${CMAKE_SOURCE_DIR}/docs/changelog
  VERBATIM
  COMMENT "Compressing docs/changelog")
add_custom_target(nvmond_deb_changelog ALL DEPENDS ${CMAKE_BINARY_DIR}/deb/changelog.gz)
install(FILES ${CMAKE_BINARY_DIR}/deb/changelog.gz ${nvmond_deb_dir}/copyright
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME nvmond)
set(CPACK_PACKAGE_VERSION "${NVMOND_DEB_VERSION}")
set(CPACK_PACKAGE_CONTACT "nvmond maintainers <maintainers@users.noreply.a-seed-18a334ea.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "NVMe SSD health, throttling and wear monitor")
# The synopsis above comes first; CPack indents these lines and marks the blank one.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "nvmond reads the SMART / health log of every NVMe controller on a fixed
interval and judges it: it tells thermal throttling apart from mere heat
using each drive's own counters and limits, projects wear against the rated
endurance with exact 128-bit counters, reads the error log, runs device
self-tests on a schedule and can measure throughput within a write budget.

It keeps every sample in SQLite and serves a JSON API, Prometheus metrics
and a dashboard over HTTP, as a hardened systemd service running as its own
user.")
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # nvmond_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Not libraries: the maintainer scripts run systemd-sysusers and systemd-tmpfiles
# (systemd, or the standalone packages in a container; deb-systemd-helper and
# dpkg-statoverride are in essential packages), and the unit's ExecReload= runs
# /bin/kill (procps: not in a minimal root, where `systemctl reload` then fails).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "systemd | systemd-sysusers, systemd | systemd-tmpfiles, procps")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${nvmond_deb_dir}/postinst ${nvmond_deb_dir}/prerm
                                       ${nvmond_deb_dir}/postrm ${nvmond_deb_dir}/conffiles)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Installed with DESTDIR into CPack's staging tree, so the rules that write
# /etc/nvmond/nvmond.conf (an absolute path) land in the package too.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})

# Checked when packaging: the binary names its web root and the unit its path for
# the prefix it was configured with, and the changelog names this version.
set(nvmond_deb_prefix "${CMAKE_INSTALL_PREFIX}")
set(nvmond_deb_changelog "${CMAKE_SOURCE_DIR}/docs/changelog")
configure_file(${nvmond_deb_dir}/cpack-check.cmake.in ${CMAKE_BINARY_DIR}/deb/cpack-check.cmake @ONLY)
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_BINARY_DIR}/deb/cpack-check.cmake)
# Then the staged files are made as dh_compress and dh_strip make them.
configure_file(${nvmond_deb_dir}/cpack-stage.cmake.in ${CMAKE_BINARY_DIR}/deb/cpack-stage.cmake @ONLY)
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_BINARY_DIR}/deb/cpack-stage.cmake)

include(CPack)
