// `import ICTKit` brings every public module of the library: property lists,
// keyed archives, document packages and their versions, uniform types and
// `.ict` documents. Each module can also be imported alone, for a smaller
// dependency (`import PropertyList`).
@_exported import DocumentPackage
@_exported import DocumentVersions
@_exported import ICTDocument
@_exported import KeyedArchive
@_exported import PropertyList
@_exported import UniformTypes
