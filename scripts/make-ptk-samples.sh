#!/usr/bin/env bash
# Builds SampleDocs/Coffee.ptk, the photo app's package (raywenderlich's
# PhotoKeeper; docs/ict-format.md section 9),
# and the damaged ones of SampleDocs/malformed-ptk/, from the photo of
# SampleDocs/Coffee.ict (made by scripts/make-sample-docs.sh).
#
# Written by Python's plistlib, not by ict, so the samples are an outside
# check of ICTKit's reader: each entry is an NSKeyedArchiver archive
# (binary, $archiver NSKeyedArchiver, $version 100000) whose $top key
# "data" holds a PTKMetadata {Version 1, Thumbnail} or PTKData {Version 1,
# Photo}, as PTKDocument.m, PTKMetadata.m and PTKData.m write them. The
# thumbnail is the photo scaled to 145×145 by ImageMagick (the photo is
# square, so the app's scale-and-crop is a plain scale).
#
# Usage: scripts/make-ptk-samples.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# Debian's ImageMagick, by full path: a `convert` earlier on PATH may be a stand-in.
convert_tool=/usr/bin/convert
[ -x "$convert_tool" ] || convert_tool="$(command -v convert)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 - "$work/photo.png" <<'PY'
import plistlib, sys
with open('SampleDocs/Coffee.ict/ctdocument.data', 'rb') as f:
    archive = plistlib.load(f)
root = archive['$objects'][archive['$top']['DATA'].data]
with open(sys.argv[1], 'wb') as f:
    f.write(archive['$objects'][root['PHOTO'].data])
PY
"$convert_tool" "$work/photo.png" -resize 145x145 -strip "PNG24:$work/thumbnail.png"

rm -rf SampleDocs/Coffee.ptk SampleDocs/malformed-ptk/*.ptk
python3 - "$work/photo.png" "$work/thumbnail.png" <<'PY'
import os, plistlib, sys
UID = plistlib.UID
photo = open(sys.argv[1], 'rb').read()
thumbnail = open(sys.argv[2], 'rb').read()

def archive(class_name, key, data):
    """An NSKeyedArchiver archive of one object {Version: 1, key: data} of class_name, under $top "data"."""
    return plistlib.dumps({
        '$archiver': 'NSKeyedArchiver',
        '$version': 100000,
        '$top': {'data': UID(1)},
        '$objects': [
            '$null',
            {'Version': 1, key: UID(2), '$class': UID(3)},
            data,
            {'$classname': class_name, '$classes': [class_name, 'NSObject']},
        ],
    }, fmt=plistlib.FMT_BINARY, sort_keys=False)

def package(path, entries):
    os.makedirs(path)
    for name, contents in entries.items():
        with open(os.path.join(path, name), 'wb') as f:
            f.write(contents)

metadata = archive('PTKMetadata', 'Thumbnail', thumbnail)
data = archive('PTKData', 'Photo', photo)
package('SampleDocs/Coffee.ptk', {'photo.metadata': metadata, 'photo.data': data})
m = 'SampleDocs/malformed-ptk'
package(f'{m}/missing-metadata.ptk', {'photo.data': data})
# The metadata entry holds the data's object: class PTKData where PTKMetadata belongs.
package(f'{m}/wrong-class.ptk', {'photo.metadata': data, 'photo.data': data})
# The thumbnail cut to its first 100 bytes: the PNG signature and IHDR are whole, the image data is not.
package(f'{m}/damaged-thumbnail.ptk', {'photo.metadata': archive('PTKMetadata', 'Thumbnail', thumbnail[:100]), 'photo.data': data})
PY
