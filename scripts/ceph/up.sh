#!/bin/bash
# Starts a single-node Ceph cluster for tests: one monitor, one memstore OSD and one RADOS Gateway (S3 + IAM APIs)
# on 127.0.0.1, without systemd. Everything lives in CEPH_DATA_DIR; stop it with down.sh.
#
# Environment:
#   CEPH_DATA_DIR        (required) directory of the cluster; created, or wiped when it holds an earlier cluster
#   CEPH_MON_PORT        monitor port (default 13300)
#   CEPH_RGW_PORT        RADOS Gateway port (default 7480)
#   CEPH_ADMIN_UID       uid of the S3 admin user (default admin)
#   CEPH_ACCESS_KEY      access key id of the admin user (default: generated)
#   CEPH_SECRET_KEY      secret key of the admin user (default: generated)
#   CEPH_MEMSTORE_BYTES  size of the in-memory OSD (default 2 GiB)
#   CEPH_START_TIMEOUT   seconds allowed for each daemon to come up (default 120)
#
# Exit status: 0 when the gateway serves; 75 (EX_TEMPFAIL) when a port is, or became, in use before a daemon could
# bind it, so a caller that chose free ports may choose others and try again; 1 on any other failure.
#
# On success the last line of stdout is
#   CEPH_RGW_READY endpoint=http://127.0.0.1:<port> access_key=<id> conf=<dir>/ceph.conf credentials=<dir>/cluster.json
# The secret key is written only to cluster.json (mode 600), never printed.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
D=${CEPH_DATA_DIR:?set CEPH_DATA_DIR to the directory for the cluster}
MON_PORT=${CEPH_MON_PORT:-13300}
RGW_PORT=${CEPH_RGW_PORT:-7480}
ADMIN_UID=${CEPH_ADMIN_UID:-admin}
MEMSTORE_BYTES=${CEPH_MEMSTORE_BYTES:-2147483648}
START_TIMEOUT=${CEPH_START_TIMEOUT:-120}
MARKER=.ceph-local-cluster

fail() { echo "ceph up: $*" >&2; exit 1; }
PORT_IN_USE=75

random_string() { # <length> <character class>
  local out=""
  while [ ${#out} -lt "$1" ]; do out+=$(head -c 256 /dev/urandom | LC_ALL=C tr -dc "$2"); done
  echo "${out:0:$1}"
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Whether a pid file names a live Ceph daemon (a pid left from before a reboot may belong to another process).
daemon_running() { # <pid file>
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] && grep -qE '^(ceph-mon|ceph-osd|radosgw)' "/proc/$pid/comm" 2>/dev/null
}

for bin in ceph-mon ceph-osd radosgw radosgw-admin ceph monmaptool ceph-authtool curl; do
  command -v "$bin" >/dev/null || fail "$bin not found; install Ceph with: sudo bash $SCRIPT_DIR/install.sh"
done
for port in "$MON_PORT" "$RGW_PORT"; do
  if port_in_use "$port"; then
    echo "ceph up: port $port on 127.0.0.1 is already in use (set CEPH_MON_PORT / CEPH_RGW_PORT)" >&2
    exit $PORT_IN_USE
  fi
done

# Refuse to wipe a directory this script did not create, and never wipe a cluster that is still running.
if [ -d "$D" ] && [ -n "$(ls -A "$D")" ]; then
  [ -f "$D/$MARKER" ] || fail "$D is not empty and is not a cluster made by up.sh; choose an empty directory"
  for f in "$D"/run/*.pid; do
    [ -f "$f" ] && daemon_running "$f" && fail "a cluster is still running in $D; stop it with down.sh"
  done
  rm -rf "$D"
fi
mkdir -p "$D"/{run,log,crash,mon/ceph-a,osd/ceph-0,rgw}
D=$(cd "$D" && pwd)
touch "$D/$MARKER"

# The monitor shuts itself down when its disk has less than 5% free: say so now rather than fail obscurely later.
free_percent=$(df -P "$D" | awk 'NR==2 { gsub("%", "", $5); print 100 - $5 }')
[ "$free_percent" -ge 6 ] || fail "only ${free_percent}% of the disk holding $D is free; the Ceph monitor needs more than 5%"

FSID=$(cat /proc/sys/kernel/random/uuid)
cat > "$D/ceph.conf" <<CONF
[global]
fsid = $FSID
mon host = v2:127.0.0.1:$MON_PORT
public network = 127.0.0.0/8
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
auth allow insecure global id reclaim = false
mon warn on insecure global id reclaim allowed = false
mon data avail warn = 1
run dir = $D/run
pid file = $D/run/\$name.pid
admin socket = $D/run/\$name.asok
log file = $D/log/\$name.log
# nothing outside the directory: the cluster log and crash reports default to /var/log/ceph and /var/lib/ceph
mon cluster log file = $D/log/cluster.log
crash dir = $D/crash
keyring = $D/keyring
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
osd crush chooseleaf type = 0
ms bind ipv4 = true
ms bind ipv6 = false
[mon]
mon data = $D/mon/\$cluster-\$id
mon allow pool delete = true
# a single monitor has nobody to batch map updates with: propose at once instead of every second
paxos propose interval = 0.05
[osd]
osd data = $D/osd/\$cluster-\$id
osd objectstore = memstore
memstore device bytes = $MEMSTORE_BYTES
osd class load list = *
osd class default list = *
osd max object name len = 460
osd max object namespace len = 64
[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:$RGW_PORT
rgw data = $D/rgw
rgw dns name = localhost
rgw enable apis = s3, s3website, admin, sts, iam
rgw thread pool size = 64
CONF
C=(-c "$D/ceph.conf")

# On any failure: show the log of the step that failed, stop what was started, keep the directory for inspection.
STEP_LOG="$D/log/up.log"
EXIT_STATUS=1
on_error() {
  echo "ceph up: failed; last lines of $STEP_LOG:" >&2
  tail -n 40 "$STEP_LOG" >&2 2>/dev/null || true
  CEPH_DATA_DIR="$D" CEPH_STOP_TIMEOUT=0 bash "$SCRIPT_DIR/down.sh" >&2 || true
  exit $EXIT_STATUS
}
trap on_error ERR
# The daemons run in sessions of their own, out of reach of a Ctrl-C: stop them when this script is interrupted.
on_signal() {
  trap - ERR INT TERM HUP
  echo "ceph up: interrupted; stopping what was started" >&2
  CEPH_DATA_DIR="$D" CEPH_STOP_TIMEOUT=0 bash "$SCRIPT_DIR/down.sh" >&2 || true
  exit 130
}
trap on_signal INT TERM HUP

# Another process may take a port between the check above and a daemon's bind; the daemon then logs this and exits.
bind_failed() { grep -qs 'Address already in use' "$STEP_LOG" "$D/log/up.log"; }

wait_until() { # <what> <command...>: retry the command until it succeeds or START_TIMEOUT passes
  local what=$1; shift
  local deadline=$((SECONDS + START_TIMEOUT))
  until "$@" >/dev/null 2>&1; do
    if bind_failed; then
      echo "ceph up: $what could not bind its port: another process took it (Address already in use)" >&2
      EXIT_STATUS=$PORT_IN_USE
      return 1
    fi
    [ $SECONDS -lt $deadline ] || { echo "ceph up: timed out after ${START_TIMEOUT}s waiting for $what" >&2; return 1; }
    sleep 0.3
  done
}

ceph_cli() { timeout 30 ceph "${C[@]}" --connect-timeout 10 "$@"; }
osd_is_up() { ceph_cli osd stat 2>/dev/null | grep -q '1 up'; }

started_ns=$(date +%s%N)
exec 4>>"$D/log/up.log"

monmaptool --create --fsid "$FSID" --addv a "[v2:127.0.0.1:$MON_PORT]" "$D/monmap" >&4 2>&1
ceph-authtool --create-keyring "$D/keyring" --gen-key -n mon. --cap mon 'allow *' >&4
ceph-authtool "$D/keyring" --gen-key -n client.admin \
  --cap mon 'allow *' --cap osd 'allow *' --cap mds 'allow *' --cap mgr 'allow *' >&4
ceph-authtool "$D/keyring" --gen-key -n osd.0 \
  --cap mon 'allow profile osd' --cap osd 'allow *' --cap mgr 'allow profile osd' >&4
ceph-authtool "$D/keyring" --gen-key -n client.rgw.a --cap mon 'allow rw' --cap osd 'allow rwx' --cap mgr 'allow rw' >&4

STEP_LOG="$D/log/mon.a.log"
ceph-mon "${C[@]}" --mkfs -i a --monmap "$D/monmap" --keyring "$D/keyring" >&4 2>&1
# the monitor's parent waits for the bind before it returns: a port taken meanwhile fails it here
ceph-mon "${C[@]}" -i a </dev/null >&4 2>&1 || { bind_failed && EXIT_STATUS=$PORT_IN_USE; false; }
wait_until "the monitor on port $MON_PORT" ceph_cli -s

STEP_LOG="$D/log/osd.0.log"
OSD_UUID=$(cat /proc/sys/kernel/random/uuid)
OSD_ID=$(ceph_cli osd new "$OSD_UUID")
ceph_cli auth import -i "$D/keyring" >&4 2>&1
ceph-osd "${C[@]}" -i "$OSD_ID" --mkfs --osd-uuid "$OSD_UUID" >&4 2>&1
ceph-osd "${C[@]}" -i "$OSD_ID" </dev/null >&4 2>&1
wait_until "the OSD" osd_is_up

# Pre-create the gateway's pools: created lazily by radosgw, each costs seconds on its first request.
STEP_LOG="$D/log/up.log"
pool_commands=""
for pool in .rgw.root default.rgw.log default.rgw.control default.rgw.meta default.rgw.buckets.index \
  default.rgw.buckets.data default.rgw.buckets.non-ec; do
  pool_commands+="osd pool create $pool 8 8"$'\n'"osd pool application enable $pool rgw"$'\n'
done
# Fourteen commands in one client, each waiting for a map to be committed: under load they can take longer than the
# 30 s of one command, so they get the time a daemon gets to come up (at least 30 s).
printf '%s' "$pool_commands" | timeout $((START_TIMEOUT > 30 ? START_TIMEOUT : 30)) ceph "${C[@]}" --connect-timeout 10 >&4 2>&1

STEP_LOG="$D/log/client.rgw.a.log"
radosgw "${C[@]}" -n client.rgw.a </dev/null >&4 2>&1
wait_until "the RADOS Gateway on port $RGW_PORT" curl -sf --max-time 5 -o /dev/null "http://127.0.0.1:$RGW_PORT/"

STEP_LOG="$D/log/up.log"
if [ -n "${CEPH_SECRET_KEY:-}" ]; then
  # radosgw-admin takes a given secret only as an argument: it is on its command line while it runs
  ACCESS_KEY=${CEPH_ACCESS_KEY:-$(random_string 20 'A-Z0-9')}
  SECRET_KEY=$CEPH_SECRET_KEY
  radosgw-admin "${C[@]}" user create --uid="$ADMIN_UID" --display-name="$ADMIN_UID" \
    --access-key="$ACCESS_KEY" --secret-key="$SECRET_KEY" >/dev/null 2>&4
else
  # the secret generated by radosgw-admin (the access key too, unless given): a generated secret never appears on a
  # command line, where other users could read it in /proc
  access_key_args=()
  [ -z "${CEPH_ACCESS_KEY:-}" ] || access_key_args=(--access-key="$CEPH_ACCESS_KEY" --gen-secret)
  user_json=$(radosgw-admin "${C[@]}" user create --uid="$ADMIN_UID" --display-name="$ADMIN_UID" "${access_key_args[@]}" 2>&4)
  ACCESS_KEY=$(awk -F'"' '/"access_key"/ { print $4; exit }' <<<"$user_json")
  SECRET_KEY=$(awk -F'"' '/"secret_key"/ { print $4; exit }' <<<"$user_json")
  unset user_json
  [ -n "$ACCESS_KEY" ] && [ -n "$SECRET_KEY" ] || { echo "ceph up: radosgw-admin created $ADMIN_UID without S3 keys" >&4; false; }
fi
radosgw-admin "${C[@]}" caps add --uid="$ADMIN_UID" --caps="user-policy=*;users=*" >/dev/null 2>&4

ENDPOINT="http://127.0.0.1:$RGW_PORT"
(
  umask 077
  cat > "$D/cluster.json" <<JSON
{
  "endpoint": "$ENDPOINT",
  "monPort": $MON_PORT,
  "rgwPort": $RGW_PORT,
  "conf": "$D/ceph.conf",
  "adminUid": "$ADMIN_UID",
  "accessKeyId": "$ACCESS_KEY",
  "secretAccessKey": "$SECRET_KEY"
}
JSON
)
trap - ERR INT TERM HUP
elapsed_ms=$((($(date +%s%N) - started_ns) / 1000000))
echo "ceph up: cluster in $D started in $((elapsed_ms / 1000)).$(printf '%03d' $((elapsed_ms % 1000))) s"
echo "CEPH_RGW_READY endpoint=$ENDPOINT access_key=$ACCESS_KEY conf=$D/ceph.conf credentials=$D/cluster.json"
