#!/bin/sh
# Collects the root filesystem of a runtime image (compose/Dockerfile): the given executables
# under /usr/local/bin (the first as `service`, or as --main names it), exactly the shared
# libraries they load (ldd's closure, at the paths the dynamic loader looks them up by, the
# loader itself included) and the few files those libraries read at run time: CA certificates
# (OpenSSL and libcurl), passwd/group for the image's user, nsswitch.conf, an empty /tmp. Nothing
# else: no shell, no package manager. Executables and libraries are stripped of symbols (a
# crash's addresses are symbolicated with the build stage's unstripped binaries).
#   usage: runtime-rootfs.sh OUT [--main NAME] EXECUTABLE [EXECUTABLE...] [--vips-module NAME...]
# --vips-module adds a libvips loader module (vips-modules-*/vips-NAME.so) and its libraries.
set -eu
out=$1; shift
[ $# -ge 1 ] || { echo "usage: runtime-rootfs.sh OUT SERVICE [EXECUTABLE...] [--vips-module NAME...]" >&2; exit 2; }
mkdir -p "$out/usr/local/bin" "$out/etc/ssl/certs" "$out/usr/lib/ssl" "$out/tmp"
chmod 1777 "$out/tmp"

# Every library ldd resolves for $1 (the whole closure), and its loader.
libraries() {
    ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
    if ldd "$1" | grep -q 'not found'; then echo "runtime-rootfs.sh: $1 needs a library that is not installed" >&2; exit 1; fi
}
copy_libraries() {
    for lib in $(libraries "$1"); do
        [ -e "$out$lib" ] || cp -L --parents "$lib" "$out"   # the name the loader asks for, the file's bytes
    done
}

first=1 modules="" main=service
while [ $# -gt 0 ]; do
    case "$1" in
        --vips-module) modules="$modules ${2:?--vips-module NAME}"; shift 2; continue ;;
        --main) main="${2:?--main NAME}"; shift 2; continue ;;
    esac
    if [ "$first" = 1 ]; then cp "$1" "$out/usr/local/bin/$main"; first=0; else cp "$1" "$out/usr/local/bin/"; fi
    copy_libraries "$1"
    shift
done
for name in $modules; do
    module="$(ls /usr/lib/*/vips-modules-*/vips-"$name".so)"
    cp --parents "$module" "$out"
    copy_libraries "$module"
done

find "$out" -type f \( -name '*.so*' -o -path '*/bin/*' \) ! -name 'ld-linux*' -exec strip --strip-unneeded {} +

cp -L /etc/ssl/certs/ca-certificates.crt "$out/etc/ssl/certs/"
ln -sf /etc/ssl/certs/ca-certificates.crt "$out/usr/lib/ssl/cert.pem"
ln -sf /etc/ssl/certs "$out/usr/lib/ssl/certs"
printf 'root:x:0:0:root:/root:/sbin/nologin\nrendezvous:x:10001:10001:Rendezvous:/tmp:/sbin/nologin\n' >"$out/etc/passwd"
printf 'root:x:0:\nrendezvous:x:10001:\n' >"$out/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$out/etc/nsswitch.conf"
