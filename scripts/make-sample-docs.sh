#!/usr/bin/env bash
# Rebuilds SampleDocs/*.ict and SampleDocs/malformed/ from real photographs:
# the public-domain and CC0 sample images that scikit-image ships in its data
# folder (skimage/data; licences in skimage/data/_fetchers.py: astronaut and
# the Hubble Deep Field are NASA public domain, rocket is SpaceX public
# domain, camera, chelsea and coffee are CC0 from their photographers).
#
# scikit-image is installed (wheel only, no dependencies: only its data files
# are used) into a virtual environment in the cache folder, outside git.
# Each photo is cropped square (as the original app's picker crops) and made
# 320×320 with ImageMagick, then given to `ict create`, which stores it and
# makes the 280×280 thumbnail. Needs a built ict (default .build/debug/ict).
#
# Usage: scripts/make-sample-docs.sh [ICT]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
ict="$(realpath "${1:-.build/debug/ict}")"
cache="${ICTKIT_CACHE:-$HOME/.cache/ictkit}"
venv="$cache/skimage-venv"
# Debian's ImageMagick, by full path: a `convert` earlier on PATH may be a stand-in.
convert_tool=/usr/bin/convert
identify_tool=/usr/bin/identify

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q --no-deps 'scikit-image==0.26.0'
data="$("$venv/bin/python" -c 'import pathlib, sysconfig; print(pathlib.Path(sysconfig.get_paths()["purelib"]) / "skimage" / "data")')"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

rm -rf SampleDocs/*.ict SampleDocs/malformed
mkdir -p SampleDocs/malformed

# file | first name | last name | display name | favourite number
while IFS='|' read -r file first last display number; do
  photo="$work/$(basename "${file%.*}").png"
  side="$("$identify_tool" -format '%[fx:min(w,h)]' "$data/$file")"
  "$convert_tool" "$data/$file" -gravity center -extent "${side}x${side}" -resize 320x320 -strip "PNG24:$photo"
  "$ict" create --name "$display" --first-name "$first" --last-name "$last" --display-name "$display" \
    --favorite-number "$number" --photo "$photo" -o SampleDocs >/dev/null
done <<'LIST'
astronaut.png|Eileen|Collins|Astronaut|1999
camera.png|Camera|Man|Cameraman|8
chelsea.png|Chelsea|Cat|Chelsea|9
coffee.png|Coffee|Cup|Coffee|3.5
rocket.jpg|Falcon|Heavy|Rocket|2018
hubble_deep_field.jpg|Hubble|Deep Field|Hubble Deep Field|3000
LIST

# The malformed samples start from one small valid document.
"$convert_tool" "$data/coffee.png" -gravity center -extent 400x400 -resize 64x64 -strip "PNG24:$work/small.png"
"$ict" create --name base --first-name Malformed --last-name Sample --display-name "Malformed Sample" \
  --favorite-number 1 --photo "$work/small.png" -o "$work" >/dev/null
base="$work/base.ict"
m=SampleDocs/malformed
for name in missing-entry unknown-version truncated-archive damaged-png wrong-class name-mismatch; do
  cp -R "$base" "$m/$name.ict"
done
rm "$m/missing-entry.ict/ctdocument.data"
cp "$base/ctdocument.data" "$m/wrong-class.ict/ctdocument.metadata"
python3 - "$m" <<'PY'
import plistlib, sys
m = sys.argv[1]

def edit(path, change):
    with open(path, 'rb') as f:
        archive = plistlib.load(f)
    root = archive['$objects'][archive['$top']['DATA'].data]
    change(archive['$objects'], root)
    with open(path, 'wb') as f:
        plistlib.dump(archive, f, fmt=plistlib.FMT_BINARY, sort_keys=False)

def version(objects, root):
    root['VERSION'] = 2
edit(f'{m}/unknown-version.ict/ctdocument.metadata', version)

def rename(objects, root):
    objects[root['DISPLAY NAME'].data] = 'Someone Else'
edit(f'{m}/name-mismatch.ict/ctdocument.metadata', rename)

def damage(objects, root):
    photo = bytearray(objects[root['PHOTO'].data])
    start = photo.index(b'IDAT') + 8
    for i in range(start, min(start + 64, len(photo) - 16)):
        photo[i] ^= 0x5A
    objects[root['PHOTO'].data] = bytes(photo)
edit(f'{m}/damaged-png.ict/ctdocument.data', damage)

path = f'{m}/truncated-archive.ict/ctdocument.data'
data = open(path, 'rb').read()
open(path, 'wb').write(data[:len(data) // 2])
PY
echo "make-sample-docs: $(ls -d SampleDocs/*.ict | wc -l) samples, $(ls -d $m/*.ict | wc -l) malformed" >&2
