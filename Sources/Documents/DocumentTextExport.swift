// A text note's text is read by one implementation, in ICTDocument (which `ict` and the
// folder listing use too); a `Document<Data>` of a note loads its text with it.
@_exported import struct ICTDocument.DocumentText
