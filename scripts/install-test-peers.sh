#!/bin/sh
# Installs the Debian packages the integration tests start as real peers (nginx for mutual TLS,
# OpenSSH's sshd for SFTP and SSH tunnels) when they are missing. Idempotent and quiet when both
# are present; needs root (or sudo) only when something must be installed.
set -eu

missing=""
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing="$missing nginx"
command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || missing="$missing openssh-server"
command -v openssl >/dev/null 2>&1 || missing="$missing openssl"
[ -x /usr/lib/postgresql/15/bin/postgres ] || missing="$missing postgresql-15"

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  as_root=""
elif command -v sudo >/dev/null 2>&1; then
  as_root="sudo"
else
  echo "install-test-peers: need root to install:$missing" >&2
  exit 1
fi

echo "install-test-peers: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$as_root apt-get update -qq >/dev/null
# shellcheck disable=SC2086
$as_root apt-get install -y -qq --no-install-recommends $missing >/dev/null
