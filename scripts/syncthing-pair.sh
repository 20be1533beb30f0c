#!/usr/bin/env bash
# Runs the CloudNoteApp example (Examples/DocumentPorts) on two real Syncthing
# devices on loopback: device 0's folder is the app's ubiquity container
# (ICT_UBIQUITY_CONTAINER), where the app moves a note in and out with
# setUbiquitous and leaves one; device 1, whose container is configured in a
# containers.plist naming its Syncthing, must then list that note through its
# own metadata query, reported current by the engine, and open it as written.
#
# Usage: scripts/syncthing-pair.sh PATH/TO/CloudNoteApp
#
# The devices are made as Tests/TestSupport/SyncthingDevices.swift makes
# them (see there for why each setting): a home and a folder each under one
# temporary folder, config.xml written before the first start (discovery,
# relays, NAT and upgrades off, each peer dialled at tcp://127.0.0.1:PORT,
# one shared folder with a one-second watcher), one process each
# (STMONITORED), started one after another. Every wait polls the REST API
# with a deadline; the devices are stopped and everything removed on exit.
# Needs syncthing, curl and python3 (scripts/install-deps.sh examples).
set -euo pipefail

app=${1:?usage: scripts/syncthing-pair.sh PATH/TO/CloudNoteApp}
for tool in syncthing curl python3; do
  command -v "$tool" >/dev/null 2>&1 || { echo "syncthing-pair.sh: $tool is missing (scripts/install-deps.sh examples)" >&2; exit 1; }
done

root=$(mktemp -d "${TMPDIR:-/tmp}/syncthing-pair.XXXXXX")
pids=()
cleanup() {
  local status=$?
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "$status" -ne 0 ]; then
    for log in "$root"/home*/log; do [ -f "$log" ] && { echo "--- $log (last lines)" >&2; tail -n 20 "$log" >&2; }; done
  fi
  rm -rf "$root"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() { echo "syncthing-pair.sh: $*" >&2; exit 1; }

# A TCP port on loopback free now.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

# wait_for SECONDS WHAT COMMAND…: runs COMMAND every 50 ms until it succeeds, failing after SECONDS.
wait_for() {
  local seconds=$1 what=$2; shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || fail "waited $seconds s for $what"
    sleep 0.05
  done
}

# rest INDEX PATH [METHOD]: the body of a REST call to device INDEX.
rest() {
  curl -sS --fail --max-time 5 -X "${3:-GET}" -H "X-API-Key: ${keys[$1]}" "http://127.0.0.1:${gui[$1]}$2"
}

ids=() keys=() gui=() listen=()
for index in 0 1; do
  mkdir -p "$root/device$index"
  id=$(syncthing generate --home="$root/home$index" --no-default-folder 2>&1 | sed -n 's/.*Device ID: *//p' | head -n 1)
  [ -n "$id" ] || fail "syncthing generate printed no device ID"
  ids+=("$id")
  keys+=("ictkit-example-$index-$RANDOM$RANDOM")
  gui+=("$(free_port)")
  listen+=("$(free_port)")
done

for index in 0 1; do
  other=$((1 - index))
  cat >"$root/home$index/config.xml" <<EOF
<configuration version="36">
    <folder id="documents" label="documents" path="$root/device$index" type="sendreceive" rescanIntervalS="3600" fsWatcherEnabled="true" fsWatcherDelayS="1" ignorePerms="false" autoNormalize="true">
        <filesystemType>basic</filesystemType>
        <device id="${ids[0]}"></device>
        <device id="${ids[1]}"></device>
        <maxConflicts>10</maxConflicts>
        <markerName>.stfolder</markerName>
    </folder>
    <device id="${ids[$index]}" name="device$index" compression="metadata" introducer="false">
        <address>dynamic</address>
        <autoAcceptFolders>false</autoAcceptFolders>
    </device>
    <device id="${ids[$other]}" name="device$other" compression="metadata" introducer="false">
        <address>tcp://127.0.0.1:${listen[$other]}</address>
        <autoAcceptFolders>false</autoAcceptFolders>
    </device>
    <gui enabled="true" tls="false" debugging="false">
        <address>127.0.0.1:${gui[$index]}</address>
        <apikey>${keys[$index]}</apikey>
    </gui>
    <options>
        <listenAddress>tcp://127.0.0.1:${listen[$index]}</listenAddress>
        <globalAnnounceEnabled>false</globalAnnounceEnabled>
        <localAnnounceEnabled>false</localAnnounceEnabled>
        <relaysEnabled>false</relaysEnabled>
        <natEnabled>false</natEnabled>
        <reconnectionIntervalS>1</reconnectionIntervalS>
        <startBrowser>false</startBrowser>
        <urAccepted>-1</urAccepted>
        <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
        <crashReportingEnabled>false</crashReportingEnabled>
        <progressUpdateIntervalS>1</progressUpdateIntervalS>
    </options>
</configuration>
EOF
done

# One after another: two devices dialling each other at the same instant can stall for seconds.
for index in 0 1; do
  STMONITORED=1 STNOUPGRADE=1 syncthing serve --home="$root/home$index" --no-browser --no-restart --no-upgrade \
    --no-default-folder --skip-port-probing >"$root/home$index/log" 2>&1 &
  pids+=("$!")
  wait_for 30 "device $index's REST API" rest "$index" /rest/system/ping
done

connected() { rest "$1" /rest/system/connections | python3 -c 'import json, sys
peer = sys.argv[1]
sys.exit(0 if json.load(sys.stdin)["connections"].get(peer, {}).get("connected") else 1)' "$2"; }
wait_for 30 "the devices to connect" connected 0 "${ids[1]}"
wait_for 30 "the devices to connect" connected 1 "${ids[0]}"
echo "syncthing-pair.sh: two devices connected on loopback"

echo "--- device 0: CloudNoteApp write"
ICT_UBIQUITY_CONTAINER="$root/device0" "$app" write "Shared Note" "written on device 0"
# Scanned now rather than after the watcher's delay.
rest 0 "/rest/db/scan?folder=documents&sub=Documents" POST >/dev/null

# Device 1's container is configured as a user would (containers.plist naming its Syncthing), so the
# query carries the engine's sync state: the ubiquitous item keys the app prints.
mkdir -p "$root/config1/ictkit"
cat >"$root/config1/ictkit/containers.plist" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
    <key>DefaultContainer</key><string>iCloud.org.ictkit.CloudNotes</string>
    <key>Containers</key><dict>
        <key>iCloud.org.ictkit.CloudNotes</key><dict>
            <key>Path</key><string>$root/device1</string>
            <key>Engine</key><string>syncthing</string>
            <key>EngineHome</key><string>$root/home1</string>
        </dict>
    </dict>
</dict></plist>
EOF

echo "--- device 1: CloudNoteApp read"
output=$(XDG_CONFIG_HOME="$root/config1" "$app" read "Shared Note")
echo "$output"
grep -qx 'Shared Note.icfnote: "written on device 0", state normal' <<<"$output" || fail "device 1 did not open the note as written"
grep -q '^note: Shared Note.icfnote .*NSMetadataUbiquitousItemDownloadingStatusKey=NSMetadataUbiquitousItemDownloadingStatusCurrent' <<<"$output" \
  || fail "device 1's query did not report the note current"
cmp "$root/device0/Documents/Shared Note.icfnote" "$root/device1/Documents/Shared Note.icfnote" || fail "the note differs between the devices"
[ ! -e "$root/device1/Documents/Draft.icfnote" ] || fail "the draft moved out of the container reached device 1"
echo "syncthing-pair.sh: the note written on device 0 arrived whole on device 1"
