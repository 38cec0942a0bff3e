#!/usr/bin/env bash
# Makes the base images compose/Dockerfile names, locally, where no image registry is reachable:
#   debian:12-slim       a Debian 12 minbase root filesystem by debootstrap, from the mirror apt
#                        on this machine already uses (read from its sources at run time)
#   swift:6.3-bookworm   that plus the build tools the official Swift image has and this
#                        machine's Swift toolchain (/opt/swift) under /usr, with git reading
#                        package URLs from the machine's package mirror when it has one
#                        (git's url.<base>.insteadOf, as on the host)
# Where a registry exists these names are the official images and this script is not needed;
# the Dockerfile builds unchanged with `podman build --pull=never` here and `docker build` there.
#   usage: base-images.sh [--force]      (makes only the images that are missing, unless --force)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$here/containers.conf}"
force=0; [ "${1:-}" = --force ] && force=1
SWIFT_ROOT="${SWIFT_ROOT:-/opt/swift}"

have() { [ "$force" = 0 ] && podman image exists "$1"; }

# The first Debian mirror in apt's own sources (deb822 or one-line form).
mirror() {
    local uri
    uri="$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | head -1 || true)"
    [ -n "$uri" ] || uri="$(grep -hE '^deb ' /etc/apt/sources.list 2>/dev/null | grep -v security | awk '{print $2}' | head -1 || true)"
    [ -n "$uri" ] || { echo "base-images.sh: no Debian mirror in apt's sources" >&2; exit 2; }
    echo "$uri"
}

if ! have debian:12-slim; then
    work="$(mktemp -d /var/tmp/rv-rootfs.XXXXXX)"
    trap 'rm -rf "$work"' EXIT
    echo "base-images.sh: debootstrap bookworm (minbase) from $(mirror)"
    debootstrap --variant=minbase bookworm "$work/rootfs" "$(mirror)" >"$work/debootstrap.log" 2>&1 \
        || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
    # What the official slim image leaves out, now and in every package installed later:
    # documentation, manuals, translations; and apt's lists and caches.
    printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
        'path-exclude /usr/share/man/*' 'path-exclude /usr/share/groff/*' 'path-exclude /usr/share/info/*' \
        'path-exclude /usr/share/lintian/*' 'path-exclude /usr/share/linda/*' 'path-exclude /usr/share/locale/*' \
        >"$work/rootfs/etc/dpkg/dpkg.cfg.d/slim"
    chroot "$work/rootfs" apt-get clean
    find "$work/rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
    rm -rf "$work/rootfs/var/lib/apt/lists/"* "$work/rootfs/usr/share/man/"* "$work/rootfs/usr/share/info/"* \
           "$work/rootfs/usr/share/locale/"* "$work/rootfs/usr/share/lintian/"* \
           "$work/rootfs/var/cache/debconf/"*-old "$work/rootfs/var/log/"*.log
    tar -C "$work/rootfs" --numeric-owner -c . | podman import \
        --change 'CMD ["bash"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        - debian:12-slim >/dev/null
    rm -rf "$work"; trap - EXIT
    echo "base-images.sh: debian:12-slim $(podman image inspect --format '{{.Size}}' debian:12-slim | numfmt --to=iec)"
fi

if ! have swift:6.3-bookworm; then
    [ -x "$SWIFT_ROOT/usr/bin/swift" ] || { echo "base-images.sh: no Swift toolchain at $SWIFT_ROOT" >&2; exit 2; }
    mounts=(-v "$SWIFT_ROOT:/mnt/swift:ro")
    insteadof=""
    # The machine's package mirror, if git here reads GitHub from a folder (url.<dir>.insteadOf).
    mirror_dir="$(git config --system --get-regexp '^url\..*\.insteadof$' 2>/dev/null | awk '$2=="https://github.com/"{print $1}' \
                  | sed -E 's/^url\.(.*)\.insteadof$/\1/' | head -1 || true)"
    if [ -n "$mirror_dir" ] && [ -d "$mirror_dir" ]; then
        mounts+=(-v "$mirror_dir:/mnt/packages:ro"); insteadof="$mirror_dir"
    fi
    podman build --pull=never --format docker "${mounts[@]}" --build-arg "PACKAGE_MIRROR=$insteadof" \
        -t swift:6.3-bookworm -f "$here/swift.Containerfile" "$here" >/dev/null
    echo "base-images.sh: swift:6.3-bookworm $(podman image inspect --format '{{.Size}}' swift:6.3-bookworm | numfmt --to=iec)"
fi
