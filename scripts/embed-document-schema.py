#!/usr/bin/env python3
# Regenerates Sources/ICTDocument/ICTDocumentSchemaText.swift from Schemas/ict-document.schema.plist.
# Run from the repository root after editing the schema; ICTDocumentTests checks they agree.
text = open('Schemas/ict-document.schema.plist').read()
assert text.endswith('\n') and '"""#' not in text
open('Sources/ICTDocument/ICTDocumentSchemaText.swift', 'w').write(
    '/// The text of `Schemas/ict-document.schema.plist`, built in so a relocated\n'
    '/// program needs no file beside it (a test keeps the two the same).\n'
    'let ictDocumentSchemaText: String = #"""\n%s\n"""#\n' % text)
