#!/usr/bin/env python3
"""Makes the parent links of Schemas/system-types.plist agree with a public
copy of macOS's CoreTypes.bundle, and writes the list a test compares them with.

Usage: scripts/import-coretypes.py CORETYPES_INFO_PLIST [NESTED_INFO_PLIST ...] [--whole WHOLE_INFO_PLIST ...]

CORETYPES_INFO_PLIST is CoreTypes.bundle/Contents/Info.plist (the copy cited in
Schemas/system-types-SOURCES.md, macOS Monterey 12.7.6, CoreTypes 517).
For every type it declares (UTExportedTypeDeclarations and
UTImportedTypeDeclarations), the declaration in Schemas/system-types.plist
gets exactly the copy's UTTypeConformsTo; its source, tags and description
stay as they are. A type the copy declares that the file lacks is added
(identifier, parents, tags, description) with ICTKitSource `macos-12.7.6`.
A parent the copy names without declaring it is looked up in the
NESTED_INFO_PLISTs (the bundles in CoreTypes.bundle/Contents/Library) and
added from there the same way; one found nowhere stops the script.

Every declaration of each WHOLE_INFO_PLIST (a nested bundle taken whole, such
as CoreTypes.bundle/Contents/Library/RawCameraTypes.bundle/Info.plist, the
camera RAW types) is treated as the copy's are: added when missing, its
parents made the bundle's when present.

It also writes Tests/UniformTypesTests/Fixtures/coretypes/parents.json,
the copy's identifier -> parents, which SystemTypeDeclarationsTests checks
the registry against, and, for the WHOLE_INFO_PLISTs, whole-bundles.json:
the bundle's file name (its folder in Contents/Library) -> identifier ->
parents, filename extensions and MIME types. Only facts are taken from the copy.

Run by hand when the cited copy changes, never by the build; the results are
committed and reviewed like any other change to Schemas/.
"""
import json
import plistlib
import sys

SCHEMA = 'Schemas/system-types.plist'
PARENTS = 'Tests/UniformTypesTests/Fixtures/coretypes/parents.json'
WHOLE = 'Tests/UniformTypesTests/Fixtures/coretypes/whole-bundles.json'
SOURCE = 'macos-12.7.6'
TAG_CLASSES = ('public.filename-extension', 'public.mime-type', 'com.apple.ostype')


def declarations(path):
    """The type declarations of the Info.plist at `path`, exported and imported."""
    with open(path, 'rb') as handle:
        root = plistlib.load(handle)
    return root.get('UTExportedTypeDeclarations', []) + root.get('UTImportedTypeDeclarations', [])


def as_list(value):
    """A string or an array of strings as a list (Info.plists allow either)."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def new_entry(declaration):
    """A system-types.plist entry for a declaration of the copy: facts only."""
    entry = {'UTTypeIdentifier': declaration['UTTypeIdentifier'], 'ICTKitSource': SOURCE}
    parents = as_list(declaration.get('UTTypeConformsTo'))
    if parents:
        entry['UTTypeConformsTo'] = parents
    if declaration.get('UTTypeDescription'):
        entry['UTTypeDescription'] = declaration['UTTypeDescription']
    tags = {}
    for tag_class in TAG_CLASSES:
        values = as_list(declaration.get('UTTypeTagSpecification', {}).get(tag_class))
        if values:
            tags[tag_class] = values
    if tags:
        entry['UTTypeTagSpecification'] = tags
    return entry


def bundle_name(path):
    """The nested bundle's folder name in a path ending in X.bundle/[Contents/]Info.plist."""
    return next(part for part in reversed(path.split('/')) if part.endswith('.bundle'))


def main(copy_path, nested_paths, whole_paths):
    with open(SCHEMA, 'rb') as handle:
        root = plistlib.load(handle)
    entries = root['UTExportedTypeDeclarations']
    by_identifier = {entry['UTTypeIdentifier'].lower(): entry for entry in entries}
    copy = declarations(copy_path)
    nested = {d['UTTypeIdentifier'].lower(): d for path in nested_paths for d in declarations(path)}
    parents = {}
    whole = {bundle_name(path): {} for path in whole_paths}
    changed = added = 0
    taken = [(declaration, None) for declaration in copy]
    taken += [(declaration, bundle_name(path)) for path in whole_paths for declaration in declarations(path)]
    for declaration, bundle in taken:
        identifier = declaration['UTTypeIdentifier']
        conforms = as_list(declaration.get('UTTypeConformsTo'))
        if bundle is None:
            parents[identifier] = conforms
        else:
            tags = declaration.get('UTTypeTagSpecification', {})
            whole[bundle][identifier] = {
                'parents': conforms,
                'extensions': as_list(tags.get('public.filename-extension')),
                'mimeTypes': as_list(tags.get('public.mime-type')),
            }
        entry = by_identifier.get(identifier.lower())
        if entry is None:
            entry = new_entry(declaration)
            entries.append(entry)
            by_identifier[identifier.lower()] = entry
            added += 1
        elif [p.lower() for p in entry.get('UTTypeConformsTo', [])] != [p.lower() for p in conforms]:
            if conforms:
                entry['UTTypeConformsTo'] = conforms
            else:
                entry.pop('UTTypeConformsTo', None)
            changed += 1
    # Parents the copy names but declares elsewhere in the bundle.
    for conforms in list(parents.values()):
        for parent in conforms:
            if parent.lower() in by_identifier:
                continue
            if parent.lower() not in nested:
                sys.exit(f'{copy_path}: {parent} is a parent declared neither in the copy nor in the nested bundles given')
            entry = new_entry(nested[parent.lower()])
            entries.append(entry)
            by_identifier[parent.lower()] = entry
            added += 1
    body = plistlib.dumps(root, fmt=plistlib.FMT_XML, sort_keys=True).decode('utf-8')
    with open(SCHEMA, encoding='utf-8') as handle:
        header = handle.read().split('<plist', 1)[0]
    with open(SCHEMA, 'w', encoding='utf-8') as handle:
        handle.write(header + body[body.index('<plist'):])
    with open(PARENTS, 'w', encoding='utf-8') as handle:
        json.dump(parents, handle, indent=1, sort_keys=True)
        handle.write('\n')
    if whole_paths:
        with open(WHOLE, 'w', encoding='utf-8') as handle:
            json.dump(whole, handle, indent=1, sort_keys=True)
            handle.write('\n')
    print(f'{SCHEMA}: {len(entries)} declarations, {changed} parent lists changed, {added} added; '
          f'{PARENTS}: {len(parents)} types', file=sys.stderr)


if __name__ == '__main__':
    arguments = sys.argv[1:]
    split = arguments.index('--whole') if '--whole' in arguments else len(arguments)
    if split < 1:
        sys.exit(__doc__)
    main(arguments[0], arguments[1:split], arguments[split + 1:])
