#!/usr/bin/env python3
"""Adds to Schemas/system-types.plist the system types a public dump of macOS's
type declarations lists, without changing a declaration the file already has.

Usage: scripts/import-system-types.py SYSTEM_DEFINED_RS

SYSTEM_DEFINED_RS is src/system_defined.rs of
github.com/gezihuzi/uniform-type-identifiers-rs (MIT), commit a499441, whose
history says it holds the types of macOS Ventura 13.3.1. Only facts are taken
from it: identifiers, the identifiers each type conforms to, tags and the
short names macOS gives the types. Each declaration says where it came from in
its ICTKitSource key; Schemas/system-types-SOURCES.md lists the sources.

Run by hand when a source is added, never by the build; the result is
committed and reviewed like any other change to Schemas/.
"""
import json
import plistlib
import re
import sys

SCHEMA = 'Schemas/system-types.plist'
HEADER = '''<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!--
  ICTKit's declarations of the system's uniform type identifiers, as an
  Info.plist fragment. Facts only (identifiers, conformance, tags, names),
  gathered from public sources; each declaration's ICTKitSource names its
  source, and Schemas/system-types-SOURCES.md lists the sources and their
  licences. The UniformTypes module embeds this file at build time (the
  EmbedSchemas plugin) and reads it at first use.
-->
'''
DECLARATION = re.compile(
    r'pub const \w+: UTType = UTType \{\s*identifier: "([^"]*)",\s*conforms_to: r#"(.*?)"#,'
    r'\s*tags: r#"(.*?)"#,\s*description: r#"(.*?)"#,\s*\};', re.S)


def read_dump(path):
    """(identifier, parents, tags, description) for each declaration in the dump."""
    text = open(path, encoding='utf-8').read()
    for identifier, parents, tags, description in DECLARATION.findall(text):
        # Two MIME types carry a quoted charset the dump did not escape.
        tags = re.sub(r'charset="([^"]*)""', r'charset=\1"', tags)
        yield identifier, json.loads(parents), json.loads(tags), description


def main(dump_path):
    with open(SCHEMA, 'rb') as handle:
        root = plistlib.load(handle)
    declarations = root['UTExportedTypeDeclarations']
    for declaration in declarations:
        declaration.setdefault('ICTKitSource', 'apple-docs')
    known = {d['UTTypeIdentifier'].lower() for d in declarations}
    dump = list(read_dump(dump_path))
    declared = known | {identifier.lower() for identifier, _, _, _ in dump}
    for identifier, parents, tags, description in dump:
        if identifier.lower() in known:
            continue
        known.add(identifier.lower())
        entry = {'UTTypeIdentifier': identifier, 'ICTKitSource': 'macos-13.3.1'}
        # A parent the dump does not declare is left out (com.apple.homebuttonless-device).
        parents = [parent for parent in parents if parent.lower() in declared]
        if parents:
            entry['UTTypeConformsTo'] = parents
        if description:
            entry['UTTypeDescription'] = description
        if tags:
            entry['UTTypeTagSpecification'] = tags
        declarations.append(entry)
    body = plistlib.dumps(root, fmt=plistlib.FMT_XML, sort_keys=True).decode('utf-8')
    body = body[body.index('<plist'):]
    with open(SCHEMA, 'w', encoding='utf-8') as handle:
        handle.write(HEADER + body)
    print(f'{SCHEMA}: {len(declarations)} declarations', file=sys.stderr)


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
