#!/bin/bash
# Installs the Ceph RADOS Gateway packages (and the tools up.sh uses) from Debian's apt repositories.
# Idempotent: does nothing when every package is already installed. Needs root (or sudo).
set -euo pipefail

PACKAGES=(radosgw ceph-mon ceph-osd ceph-common curl)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "ceph install: all packages already installed (${PACKAGES[*]})"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "ceph install: root is needed to install ${missing[*]}; run: sudo bash $0" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# a fresh machine often runs its daily apt jobs at boot: wait for their lock instead of failing at once
APT_OPTIONS=(-o DPkg::Lock::Timeout=600)
apt_install() {
  apt-get "${APT_OPTIONS[@]}" install -y -q --no-install-recommends "${missing[@]}"
}

# Refresh the package lists only when needed: a fresh machine (or container) has none, and stale lists make the
# install fail; otherwise skipping the refresh keeps repeated runs fast.
if ! compgen -G "/var/lib/apt/lists/*_Packages*" >/dev/null; then
  apt-get "${APT_OPTIONS[@]}" update -q
fi
echo "ceph install: installing ${missing[*]}"
if ! apt_install; then
  echo "ceph install: refreshing the apt package lists and retrying"
  apt-get "${APT_OPTIONS[@]}" update -q
  apt_install
fi

for bin in ceph-mon ceph-osd radosgw radosgw-admin ceph monmaptool ceph-authtool curl; do
  command -v "$bin" >/dev/null || { echo "ceph install: $bin is missing after the install" >&2; exit 1; }
done
echo "ceph install: done"
