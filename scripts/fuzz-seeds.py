#!/usr/bin/env python3
"""Writes seed inputs for every fuzz target into OUT/<target>/, from
../shared/interop, the repository's SampleDocs and fixtures, and a few made
here (keyed archives of CTData/CTMetadata, tiny PNGs, zips of packages).
scripts/fuzz.sh seed merges them, minimised, into Fuzz/Corpus/.

Usage: scripts/fuzz-seeds.py OUT"""
import base64, datetime, gzip, hashlib, io, json, math, os, plistlib, shutil, struct, subprocess, sys, tempfile, zipfile, zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INTEROP = os.path.join(os.path.dirname(ROOT), "shared", "interop")
MAX_SEED = 16 * 1024
out = sys.argv[1]


def add(target, data, name=None):
    if len(data) > MAX_SEED:
        return
    folder = os.path.join(out, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name or hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def json_form(value):
    """The lossless JSON form of JSONPropertyListWriter, for seeds."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return {"$real": "nan"}
        if math.isinf(value):
            return {"$real": "+infinity" if value > 0 else "-infinity"}
        return value
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return {"$data": base64.b64encode(value).decode()}
    if isinstance(value, datetime.datetime):
        return {"$date": value.strftime("%Y-%m-%dT%H:%M:%SZ")}
    if isinstance(value, plistlib.UID):
        return {"$uid": value.data}
    if isinstance(value, list):
        return [json_form(v) for v in value]
    if isinstance(value, dict):
        inner = {k: json_form(v) for k, v in value.items()}
        if len(inner) == 1 and next(iter(inner)) in ("$data", "$date", "$uid", "$real32", "$real", "$dict"):
            return {"$dict": inner}
        return inner
    raise TypeError(type(value))


def classify(path, data):
    name = os.path.basename(path)
    if data.startswith(b"bplist00"):
        for t in ("binary-plist", "partial-binary-plist", "key-path", "archive-validator"):
            add(t, data)
        if b"$archiver" in data:
            add("keyed-archive", data)
            add("keyed-unarchiver", data)
            add("keyed-coder", data)
        if b"CTMetadata" in data:
            add("ict-summary", data)
        if b"CTData" in data:
            add("ict-document", data)
    elif data.lstrip().startswith((b"<?xml", b"<!DOCTYPE plist", b"<plist")):
        if b"mime-info" in data:
            add("mime-xml", data)
        else:
            add("xml-plist", data)
            if b"$archiver" in data:
                add("archive-validator", data)
    elif data.startswith(b"\x89PNG"):
        add("png", data)
    elif name.endswith((".strings", ".pbxproj")) or data.lstrip()[:1] in (b"{", b"("):
        add("openstep-plist", data)
    if any(k in data for k in (b"CFBundleDocumentTypes", b"UTExportedTypeDeclarations", b"UTImportedTypeDeclarations")):
        add("info-plist", data)
    try:
        value = plistlib.loads(data)
        add("json-plist", json.dumps(json_form(value), ensure_ascii=False).encode())
    except Exception:
        pass


def walk(top):
    for folder, _, files in os.walk(top):
        for f in sorted(files):
            path = os.path.join(folder, f)
            if os.path.islink(path) or os.path.getsize(path) > MAX_SEED:
                continue
            with open(path, "rb") as handle:
                classify(path, handle.read())


def png(width, height, color_type, bit_depth, rows):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    header = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 0)
    raw = b"".join(b"\x00" + row for row in rows)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def archive(top_key, class_name, fields):
    """A keyed archive of one object, as NSKeyedArchiver lays it out."""
    objects = ["$null"]
    refs = {}
    for key, value in fields.items():
        if value is None:
            refs[key] = plistlib.UID(0)
        elif isinstance(value, int) and not isinstance(value, bool):
            refs[key] = value
        else:
            objects.append(value)
            refs[key] = plistlib.UID(len(objects) - 1)
    objects.append({"$classes": [class_name, "NSObject"], "$classname": class_name})
    root = {"$class": plistlib.UID(len(objects) - 1)}
    root.update(refs)
    objects.insert(1, root)
    # Shift references by the inserted root.
    for k, v in root.items():
        if isinstance(v, plistlib.UID) and v.data > 0:
            root[k] = plistlib.UID(v.data + 1)
    return plistlib.dumps({"$archiver": "NSKeyedArchiver", "$version": 100000,
                           "$objects": objects, "$top": {top_key: plistlib.UID(1)}}, fmt=plistlib.FMT_BINARY)


def zip_of(entries, links=()):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            z.writestr(name, data)
        for name, destination in links:
            info = zipfile.ZipInfo(name)
            info.external_attr = (0o120777 << 16)
            z.writestr(info, destination)
    return buffer.getvalue()


for top in ("bplist", "xmlplist", "keyedarchive", "malformed", "uti-apps", "packages", "realworld"):
    walk(os.path.join(INTEROP, top))
walk(os.path.join(ROOT, "SampleDocs", "malformed"))
walk(os.path.join(ROOT, "Tests"))
add("info-plist", open(os.path.join(ROOT, "SampleDocs", "Info.plist"), "rb").read())

tiny = png(1, 1, 6, 8, [b"\xff\x00\x00\x80"])
pngs = [tiny, png(3, 2, 0, 8, [b"\x00\x80\xff", b"\xff\x80\x00"]), png(2, 2, 2, 16, [b"\x00" * 12, b"\xff" * 12]),
        png(4, 1, 4, 8, [b"\x10\x20\x30\x40\x50\x60\x70\x80"]), png(8, 8, 0, 1, [b"\xaa"] * 8)]
for data in pngs:
    add("png", data)

metadata = [archive("DATA", "CTMetadata", {"VERSION": 1, "THUMBNAIL": tiny, "DISPLAY NAME": "Ada"}),
            archive("DATA", "CTMetadata", {"VERSION": 1, "THUMBNAIL": None, "DISPLAY NAME": None}),
            archive("DATA", "CTMetadata", {"VERSION": 2})]
data = [archive("DATA", "CTData", {"VERSION": 1, "FIRST_NAME": "Ada", "LAST_NAME": "Lovelace", "DISPLAY_NAME": "Ada L",
                                   "FAVORITE_NUMBER": None, "PHOTO": tiny}),
        archive("DATA", "CTData", {"VERSION": 1, "FIRST_NAME": None, "LAST_NAME": None, "DISPLAY_NAME": None,
                                   "FAVORITE_NUMBER": None, "PHOTO": None})]
for m in metadata:
    for t in ("ict-summary", "keyed-unarchiver", "keyed-coder", "keyed-archive", "archive-validator", "partial-binary-plist"):
        add(t, m)
for d in data:
    for t in ("ict-document", "keyed-unarchiver", "keyed-coder", "keyed-archive", "archive-validator"):
        add(t, d)

add("zip", zip_of([("Doc.ict/ctdocument.metadata", metadata[0]), ("Doc.ict/ctdocument.data", data[0])]))
add("zip", zip_of([("Doc.ict/", b""), ("Doc.ict/sub/a.txt", b"hello"), ("Doc.ict/b", b"")], links=[("Doc.ict/link", "sub/a.txt")]))
add("zip", zip_of([("Doc.ict/../escape", b"x")]))
add("zip", zip_of([("Doc.ict/link", b"")], links=[("Doc.ict/out", "../../outside")]))
add("zip", zip_of([("a.txt", b"flat")]))
nib = os.path.join(INTEROP, "packages", "TextEdit-sample-nibs", "SelectLinePanel.nib")
add("zip", zip_of([("SelectLinePanel.nib/" + f, open(os.path.join(nib, f), "rb").read()) for f in sorted(os.listdir(nib))]))

mime = "/usr/share/mime/packages/freedesktop.org.xml"
if os.path.exists(mime):
    text = open(mime, "rb").read()
    parts = text.split(b"<mime-type ")
    head = parts[0]
    for i in range(1, min(len(parts), 400), 40):
        body = b"<mime-type " + b"<mime-type ".join(parts[i:i + 3])
        if b"</mime-info>" not in body:
            body += b"</mime-info>\n"
        add("mime-xml", head + body)
add("mime-xml", b'<?xml version="1.0"?>\n<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">\n'
    b'<mime-type type="Application/X-ICT"><comment>ICT</comment><comment xml:lang="de">ICT</comment>'
    b'<alias type="application/x-ict-old"/><sub-class-of type="application/zip"/><glob pattern="*.ict"/></mime-type>\n</mime-info>\n')

# mime-cache: the machine's mime.cache (written by update-mime-database; kept
# whole although over MAX_SEED, as the one full real cache), caches
# update-mime-database writes for slices of the XML above, and hand-made ones
# (as in Tests/UniformTypesTests/SharedMimeInfoCacheTests.swift).
def card32(value):
    return struct.pack(">I", value)

system_cache = "/usr/share/mime/mime.cache"
if os.path.exists(system_cache):
    data = open(system_cache, "rb").read()
    folder = os.path.join(out, "mime-cache")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)
    add("mime-cache", data[:4096])  # truncated: offsets past the end
if os.path.exists(mime) and shutil.which("update-mime-database"):
    for i in range(1, min(len(parts), 400), 80):
        with tempfile.TemporaryDirectory() as database:
            os.makedirs(os.path.join(database, "packages"))
            body = b"<mime-type " + b"<mime-type ".join(parts[i:i + 6])
            if b"</mime-info>" not in body:
                body += b"</mime-info>\n"
            with open(os.path.join(database, "packages", "slice.xml"), "wb") as f:
                f.write(head + body)
            if subprocess.run(["update-mime-database", database], capture_output=True).returncode == 0:
                add("mime-cache", open(os.path.join(database, "mime.cache"), "rb").read())
small_cache = (bytes([0, 1, 0, 2]) + card32(40) + card32(52) + card32(72) + card32(76) + card32(120) + card32(124) * 4
               + card32(1) + card32(128) + card32(144) + card32(1) + card32(144) + card32(64) + card32(1) + card32(153)
               + card32(0) + card32(1) + card32(84) + card32(0x78) + card32(1) + card32(96) + card32(0x2E) + card32(1)
               + card32(108) + card32(0) + card32(144) + card32(50) + card32(0) + card32(0)
               + b"application/x-a\0" + b"text/x-b\0" + b"text/plain\0")
add("mime-cache", small_cache)
add("mime-cache", small_cache[:39])  # truncated header
add("mime-cache", small_cache[:96] + card32(0x2E) + card32(1) + card32(96) + small_cache[108:])  # "." is its own child
add("mime-cache", bytes([0, 1, 0, 2]) + card32(40) + card32(44) + card32(80) + card32(84) + card32(92) + card32(96) * 4
    + card32(0) + card32(2) + card32(100) + card32(64) + card32(107) + card32(72) + card32(1) + card32(107)
    + card32(1) + card32(100) + card32(0) + card32(0) + card32(0) + card32(0) + card32(0)
    + b"text/a\0" + b"text/b\0")  # cyclic parents

# ict-json-form: the .ict JSON form as `ict convert DOC.ict --format json` writes
# it (images as files), and small hand-made forms: embedded data, a NaN, bare.
add("ict-json-form", b'{\n  "version": 1,\n  "firstName": "Falcon",\n  "lastName": "Heavy",\n  "displayName": "Rocket",\n  "favoriteNumber": 2018.0,\n  "photo": {\n    "file": "Rocket.photo.png"\n  },\n  "thumbnail": {\n    "file": "Rocket.thumbnail.png"\n  }\n}')
add("ict-json-form", b'{"version": 1, "firstName": "Ada", "favoriteNumber": {"$real": "nan"}, "photo": {"$data": "iVBORw0KGgo="}}')
add("ict-json-form", b'{"version": 1}')
add("ict-json-form", b'{"version": 1, "lastName": "L\\u00e9", "displayName": "x", "favoriteNumber": 1e300, "thumbnail": {"file": "/abs/t.png"}}')

# text-note: the sample notes (whole, cut inside a character, with a byte that is
# not UTF-8) and hand-made edge cases: empty, a byte order mark, each length of
# a cut-short four-byte character, an overlong form, a surrogate.
for name in ["Shopping List.icfnote", "Tutorial Note.dox", "malformed-notes/truncated-utf8.dox", "malformed-notes/invalid-utf8.icfnote"]:
    add("text-note", open(os.path.join(ROOT, "SampleDocs", name), "rb").read())
add("text-note", b"")
add("text-note", b"\xef\xbb\xbfBOM")
for cut in range(1, 4):
    add("text-note", "note \U0001F600".encode()[:5 + cut])
add("text-note", b"\xc0\xaf")
add("text-note", b"\xed\xa0\x80")

# ptk-document: PTKMetadata entries as PhotoKeeper's PTKDocument archives them
# (top key "data", Version, Thumbnail), with a tiny thumbnail, none, $null, a
# wrong class, another version, a thumbnail that is not data, and the damaged
# sample's (its thumbnail cut to 100 bytes).
tiny = png(2, 2, 2, 8, [b"\xff\x00\x00" * 2, b"\x00\xff\x00" * 2])
add("ptk-document", archive("data", "PTKMetadata", {"Version": 1, "Thumbnail": tiny}))
add("ptk-document", archive("data", "PTKMetadata", {"Version": 1}))
add("ptk-document", archive("data", "PTKMetadata", {"Version": 1, "Thumbnail": None}))
add("ptk-document", archive("data", "PTKData", {"Version": 1, "Photo": tiny}))
add("ptk-document", archive("data", "PTKMetadata", {"Version": 2, "Thumbnail": tiny}))
add("ptk-document", archive("data", "PTKMetadata", {"Version": 1, "Thumbnail": "not data"}))
add("ptk-document", archive("DATA", "PTKMetadata", {"Version": 1, "Thumbnail": tiny}))
add("ptk-document", open(os.path.join(ROOT, "SampleDocs", "malformed-ptk", "damaged-thumbnail.ptk", "photo.metadata"), "rb").read())

# Typed streams: the fixtures Apple's code wrote (Tests/TypedStreamTests/Fixtures/SOURCES.md).
typed_streams = os.path.join(ROOT, "Tests", "TypedStreamTests", "Fixtures")
for name in sorted(os.listdir(typed_streams)):
    with open(os.path.join(typed_streams, name), "rb") as file:
        blob = file.read()
    if blob[1:13] in (b"\x0bstreamtyped", b"\x0btypedstream"):
        add("typedstream", blob)
# coredata-model-xml, coredata-mom: the model fixtures (Tests/CoreDataFilesTests/Fixtures/models, SOURCES.md),
# good and bad, XML contents and compiled models.
MODELS = os.path.join(ROOT, "Tests", "CoreDataFilesTests", "Fixtures", "models")
for folder, _, names in sorted(os.walk(MODELS)):
    for name in sorted(names):
        path = os.path.join(folder, name)
        if name == "contents":
            add("coredata-model-xml", open(path, "rb").read())
        elif name.endswith(".mom"):
            add("coredata-mom", open(path, "rb").read())

# coredata-store: Apple's CoreDataBooks store (Tests/CoreDataFilesTests/Fixtures/stores/SOURCES.md)
add("coredata-store", open(os.path.join(ROOT, "Tests", "CoreDataFilesTests", "Fixtures", "stores", "CoreDataBooks.sqlite"), "rb").read())
# nib-archive: the compiled nibs of Tests/NIBArchiveTests/Fixtures (ibtool's), and cut short: inside the
# header, at its end, and half way.
NIB_FIXTURES = os.path.join(ROOT, "Tests", "NIBArchiveTests", "Fixtures")
for name in sorted(os.listdir(NIB_FIXTURES)):
    with open(os.path.join(NIB_FIXTURES, name), "rb") as f:
        data = f.read()
    if not data.startswith(b"NIBArchive"):
        continue
    add("nib-archive", data)
    if name == "UIViewController-01J-lp-oVM.nib":
        for cut in (10, 50, len(data) // 2):
            add("nib-archive", data[:cut])

# embedded-archive: property lists holding property lists, keyed archives and typed streams in data
# values ("bplist inception"): the Terminal profile of Tests/KeyedArchiveTests/Fixtures/embedded
# (SOURCES.md there), its Font archive re-wrapped in each outer form, an XML plist inside a binary one,
# JSON and OpenStep text inside, three levels of nesting, and inner data cut short or lying.
EMBEDDED = os.path.join(ROOT, "Tests", "KeyedArchiveTests", "Fixtures", "embedded", "Solarized Dark ansi.terminal")
with open(EMBEDDED, "rb") as f:
    terminal = f.read()
add("embedded-archive", terminal)
font = plistlib.loads(terminal)["Font"]
small_xml = plistlib.dumps({"name": "Ada", "n": [1, 2]}, fmt=plistlib.FMT_XML)
for fmt in (plistlib.FMT_BINARY, plistlib.FMT_XML):
    add("embedded-archive", plistlib.dumps({"Font": font}, fmt=fmt))
    add("embedded-archive", plistlib.dumps({"Inner": small_xml, "list": [font[:100], b"bplist00" + b"\xff" * 40]}, fmt=fmt))
add("embedded-archive", plistlib.dumps({"j": b'{"a": [1, 2.5, "x"]}', "o": b"{ a = (1, <0102>); }"}, fmt=plistlib.FMT_BINARY))
nested = {"leaf": True}
for _ in range(3):
    nested = {"a": plistlib.dumps(nested, fmt=plistlib.FMT_BINARY)}
add("embedded-archive", plistlib.dumps(nested, fmt=plistlib.FMT_BINARY))

# embedded-archive and data-layers: typed streams and NIB archives as layers (issue 41), from bytes Apple's
# programs wrote (an iMessage attributedBody, Tests/TypedStreamTests/Fixtures/SOURCES.md; a NIB archive Xcode
# compiled, Tests/NIBArchiveTests/Fixtures/SOURCES.md): in a property list, bare, gzipped, zlib'd, and cut short.
with open(os.path.join(ROOT, "Tests", "TypedStreamTests", "Fixtures", "AttributedBodyTextOnly"), "rb") as f:
    attributed_body = f.read()
with open(os.path.join(ROOT, "Tests", "NIBArchiveTests", "Fixtures", "UIViewController-01J-lp-oVM.nib"), "rb") as f:
    small_nib = f.read()
add("embedded-archive", plistlib.dumps({"attributedBody": attributed_body, "nib": small_nib, "cut": attributed_body[:40]},
                                       fmt=plistlib.FMT_BINARY))
add("embedded-archive", plistlib.dumps({"z": gzip.compress(attributed_body, mtime=0)}, fmt=plistlib.FMT_XML))
for layer in (attributed_body, small_nib, gzip.compress(attributed_body, mtime=0), zlib.compress(small_nib), small_nib[:len(small_nib) // 2]):
    add("data-layers", layer)
