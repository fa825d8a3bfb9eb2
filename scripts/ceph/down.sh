#!/bin/bash
# Stops the cluster that up.sh started in CEPH_DATA_DIR: SIGTERM to each daemon by its pid file, SIGKILL to any
# still alive after CEPH_STOP_TIMEOUT seconds. With CEPH_REMOVE_DATA=1 the directory is removed too.
#
# Environment:
#   CEPH_DATA_DIR      (required) the directory given to up.sh
#   CEPH_REMOVE_DATA   1 to remove the directory after the daemons are gone (default 0)
#   CEPH_STOP_TIMEOUT  seconds to wait for a clean shutdown (default 20; 0 with CEPH_REMOVE_DATA=1, because a clean
#                      shutdown only serves data that is about to be deleted, and radosgw takes seconds to finish one)
set -uo pipefail

D=${CEPH_DATA_DIR:?set CEPH_DATA_DIR to the directory given to up.sh}
if [ "${CEPH_REMOVE_DATA:-0}" = 1 ]; then STOP_TIMEOUT=${CEPH_STOP_TIMEOUT:-0}; else STOP_TIMEOUT=${CEPH_STOP_TIMEOUT:-20}; fi
MARKER=.ceph-local-cluster

if [ ! -d "$D" ]; then
  echo "ceph down: $D does not exist; nothing to stop"
  exit 0
fi

pids=()
for f in "$D"/run/*.pid; do
  [ -f "$f" ] || continue
  pid=$(cat "$f")
  # A pid file may outlive its daemon and the pid be reused: only signal a process that is a Ceph daemon.
  if [[ "$pid" =~ ^[0-9]+$ ]] && grep -qE '^(ceph-mon|ceph-osd|radosgw)' "/proc/$pid/comm" 2>/dev/null; then
    pids+=("$pid")
  fi
done

# Whether a process still runs: a zombie (state Z, exited but not yet reaped by a parent that may never do so, as
# under a container's PID 1 without an init) has stopped.
running() { # <pid>
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat:0:1}" != Z ]
}
alive() { local p; for p in "${pids[@]}"; do running "$p" && return 0; done; return 1; }

if [ ${#pids[@]} -gt 0 ]; then
  kill "${pids[@]}" 2>/dev/null
  deadline=$((SECONDS + STOP_TIMEOUT))
  while alive && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  for p in "${pids[@]}"; do running "$p" && kill -9 "$p" 2>/dev/null; done
  deadline=$((SECONDS + 10))
  while alive; do
    if [ $SECONDS -ge $deadline ]; then
      echo "ceph down: a daemon of $D survived SIGKILL for 10 s (pids ${pids[*]}); not removing anything" >&2
      exit 1
    fi
    sleep 0.1
  done
fi
echo "ceph down: stopped ${#pids[@]} daemon(s) in $D"

if [ "${CEPH_REMOVE_DATA:-0}" = 1 ]; then
  if [ -f "$D/$MARKER" ]; then
    rm -rf "$D"
    echo "ceph down: removed $D"
  else
    echo "ceph down: $D was not made by up.sh; not removing it" >&2
    exit 1
  fi
fi
