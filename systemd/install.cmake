# Included from CMakeLists.txt after GNUInstallDirs: the systemd unit, the sample
# configuration, the man pages, the migrations and the Prometheus/Grafana files.
#
#   <sbindir>/nvmond                             (CMakeLists.txt)
#   <datadir>/nvmond/web/                        (CMakeLists.txt)
#   <prefix>/lib/systemd/system/nvmond.service   ExecStart follows the prefix
#   <prefix>/lib/sysusers.d/nvmond.conf          the user nvmond (User= of the unit);
#                                                systemd-sysusers runs on it when
#                                                installing to the real root
#   <prefix>/lib/tmpfiles.d/nvmond.conf          /var/lib/nvmond, /run/nvmond as the
#                                                unit makes them (systemd-tmpfiles
#                                                runs on it likewise)
#   /etc/nvmond/nvmond.conf                      only when there is none yet
#   <docdir>/nvmond.conf                         the annotated sample, always
#   <mandir>/man8/nvmond.8, man5/nvmond.conf.5
#   <datadir>/nvmond/migrations/*.sql            for reference: the binary embeds them
#   <datadir>/nvmond/prometheus/                 rules, scrape.yml, grafana-dashboard.json

set(NVMOND_UNITDIR lib/systemd/system CACHE STRING
    "systemd system unit directory (relative paths are under the prefix)")

# The unit as shipped names /usr/local/sbin/nvmond; install the one for this prefix.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${CMAKE_SOURCE_DIR}/systemd/nvmond.service)
file(READ ${CMAKE_SOURCE_DIR}/systemd/nvmond.service nvmond_unit)
string(REPLACE "/usr/local/sbin/nvmond" "${CMAKE_INSTALL_FULL_SBINDIR}/nvmond" nvmond_unit
       "${nvmond_unit}")
file(WRITE ${CMAKE_BINARY_DIR}/systemd/nvmond.service "${nvmond_unit}")
install(FILES ${CMAKE_BINARY_DIR}/systemd/nvmond.service DESTINATION ${NVMOND_UNITDIR})

# The unit's User=nvmond. Made at once when installing to this machine (no DESTDIR:
# a package or an image build makes it at boot, systemd-sysusers.service).
set(NVMOND_SYSUSERSDIR lib/sysusers.d CACHE STRING
    "sysusers.d directory (relative paths are under the prefix)")
install(FILES ${CMAKE_SOURCE_DIR}/systemd/nvmond.sysusers DESTINATION ${NVMOND_SYSUSERSDIR}
        RENAME nvmond.conf)
# Its directories, owned by it (the package's postinst runs systemd-tmpfiles on this).
set(NVMOND_TMPFILESDIR lib/tmpfiles.d CACHE STRING
    "tmpfiles.d directory (relative paths are under the prefix)")
install(FILES ${CMAKE_SOURCE_DIR}/systemd/nvmond.tmpfiles DESTINATION ${NVMOND_TMPFILESDIR}
        RENAME nvmond.conf)
install(CODE "
  find_program(NVMOND_SYSUSERS systemd-sysusers)
  find_program(NVMOND_TMPFILES systemd-tmpfiles)
  if(\"\$ENV{DESTDIR}\" STREQUAL \"\" AND NVMOND_SYSUSERS)
    message(STATUS \"Running: \${NVMOND_SYSUSERS} ${CMAKE_SOURCE_DIR}/systemd/nvmond.sysusers\")
    execute_process(COMMAND \${NVMOND_SYSUSERS} ${CMAKE_SOURCE_DIR}/systemd/nvmond.sysusers
                    RESULT_VARIABLE nvmond_sysusers_rc)
    if(NOT nvmond_sysusers_rc EQUAL 0)
      message(WARNING \"systemd-sysusers failed (\${nvmond_sysusers_rc}): make the user nvmond by hand\")
    elseif(NVMOND_TMPFILES)
      message(STATUS \"Running: \${NVMOND_TMPFILES} --create ${CMAKE_SOURCE_DIR}/systemd/nvmond.tmpfiles\")
      execute_process(COMMAND \${NVMOND_TMPFILES} --create ${CMAKE_SOURCE_DIR}/systemd/nvmond.tmpfiles)
    endif()
  endif()")

# Man pages: nvmond.conf(5) lists the keys of systemd/nvmond.conf, generated so
# that the two never disagree.
find_program(NVMOND_AWK NAMES awk mawk gawk REQUIRED)
configure_file(${CMAKE_SOURCE_DIR}/systemd/man/nvmond.8.in ${CMAKE_BINARY_DIR}/man/nvmond.8 @ONLY)
configure_file(${CMAKE_SOURCE_DIR}/systemd/man/nvmond.conf.5.in
               ${CMAKE_BINARY_DIR}/man/nvmond.conf.5.in @ONLY)
add_custom_command(
  OUTPUT ${CMAKE_BINARY_DIR}/man/nvmond.conf.5
  COMMAND sh -c "\"$0\" -f \"$1\" \"$2\" \"$3\" > \"$4\"" ${NVMOND_AWK}
          ${CMAKE_SOURCE_DIR}/systemd/man/conf2man.awk ${CMAKE_BINARY_DIR}/man/nvmond.conf.5.in
          ${CMAKE_SOURCE_DIR}/systemd/nvmond.conf ${CMAKE_BINARY_DIR}/man/nvmond.conf.5
  DEPENDS ${CMAKE_SOURCE_DIR}/systemd/man/conf2man.awk ${CMAKE_BINARY_DIR}/man/nvmond.conf.5.in
          ${CMAKE_SOURCE_DIR}/systemd/nvmond.conf
  VERBATIM
  COMMENT "Generating nvmond.conf(5)")
add_custom_target(nvmond_man ALL DEPENDS ${CMAKE_BINARY_DIR}/man/nvmond.conf.5)
install(FILES ${CMAKE_BINARY_DIR}/man/nvmond.8 DESTINATION ${CMAKE_INSTALL_MANDIR}/man8)
install(FILES ${CMAKE_BINARY_DIR}/man/nvmond.conf.5 DESTINATION ${CMAKE_INSTALL_MANDIR}/man5)

# The configuration lives where the daemon and the unit look (CFG_DEFAULT_PATH),
# whatever the prefix; an existing one is never overwritten.
install(FILES ${CMAKE_SOURCE_DIR}/systemd/nvmond.conf DESTINATION ${CMAKE_INSTALL_DOCDIR})
# Installed here 0640 (group nvmond below); staged (DESTDIR: a package) 0644, as a
# package ships it: no file of its own has the group nvmond before its postinst
# made the user, so that postinst sets root:nvmond 0640 (systemd/deb/postinst).
install(CODE "
  if(EXISTS \"\$ENV{DESTDIR}/etc/nvmond/nvmond.conf\")
    message(STATUS \"Keeping: \$ENV{DESTDIR}/etc/nvmond/nvmond.conf (sample: ${CMAKE_INSTALL_FULL_DOCDIR}/nvmond.conf)\")
  elseif(\"\$ENV{DESTDIR}\" STREQUAL \"\")
    file(INSTALL DESTINATION /etc/nvmond TYPE FILE PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ
         FILES \"${CMAKE_SOURCE_DIR}/systemd/nvmond.conf\")
  else()
    file(INSTALL DESTINATION /etc/nvmond TYPE FILE
         PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ
         FILES \"${CMAKE_SOURCE_DIR}/systemd/nvmond.conf\")
  endif()
  # The unit runs as nvmond, which reads it (again on reload): group nvmond when
  # it has root's (0640 root:root before the unit had a User=).
  if(\"\$ENV{DESTDIR}\" STREQUAL \"\")
    execute_process(COMMAND getent group nvmond RESULT_VARIABLE nvmond_no_group OUTPUT_QUIET)
    execute_process(COMMAND stat -c %g /etc/nvmond/nvmond.conf OUTPUT_VARIABLE nvmond_conf_gid
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(nvmond_no_group EQUAL 0 AND nvmond_conf_gid STREQUAL \"0\")
      message(STATUS \"Group nvmond: /etc/nvmond/nvmond.conf\")
      execute_process(COMMAND chgrp nvmond /etc/nvmond/nvmond.conf)
    endif()
  endif()")

install(DIRECTORY ${CMAKE_SOURCE_DIR}/migrations/ DESTINATION ${CMAKE_INSTALL_DATADIR}/nvmond/migrations
        FILES_MATCHING PATTERN "*.sql")
install(DIRECTORY ${CMAKE_SOURCE_DIR}/systemd/prometheus/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/nvmond/prometheus)
