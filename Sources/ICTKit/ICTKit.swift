// `import ICTKit` brings every public module of the library: property lists,
// keyed archives (as a graph, and through an NSCoder-shaped coder:
// KeyedCoding), document packages and their versions, uniform types and
// `.ict` documents, ubiquity containers (folders a sync engine keeps), compiled nibs (NIBArchive), and Apple's FileWrapper and UTType on Linux
// (AppleCompatibility; on Apple platforms, Apple's own). Each module can also be imported alone, for a smaller
// dependency (`import PropertyList`).
@_exported import AppleCompatibility
@_exported import ConflictVersions
@_exported import CoreDataFiles
@_exported import DocumentFormats
@_exported import DocumentObject
@_exported import EmbeddedLayers
@_exported import FileCoordination
@_exported import FoundationValues
@_exported import KeyedArchive
@_exported import KeyedCoding
@_exported import LiveQuery
@_exported import NIBArchive
@_exported import PackageFormat
@_exported import PropertyList
@_exported import TypedStream
@_exported import UbiquitousKeyValueStore
@_exported import UbiquityContainers
@_exported import UniformTypes
