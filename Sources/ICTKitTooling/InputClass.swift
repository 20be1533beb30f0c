import CoreDataFiles
import DocumentFormats

/// What kind of input a path names, decided in one place for every command
/// (`convert`, `get`, `inspect`, `validate`, `set`, `diff`): the reader it
/// goes to.
///
/// The readers are asked in one order, the first that takes the input wins:
/// a Core Data store (a SQLite file, or a managed document's package), a
/// document of a kind other than `.ict` (`.ptk`, `.icfnote`, `.dox`), a Core
/// Data model (`.xcdatamodeld`, `.xcdatamodel`, `.momd`, `.mom`), a compiled
/// nib; anything else is a property list, keyed archive, typed stream,
/// package or zip archive, as `InputKind` tells them apart. A command asks
/// only about the readers it has (`Readers`), so an input no reader of its
/// own takes costs it no probe.
package enum InputClass: Equatable {
    /// A Core Data SQLite store, or a managed document's package holding one.
    case coreDataStore
    /// A `.ptk` package or a note (`.icfnote`, `.dox`); an `.ict` document is `.other(.document)`.
    case document(DocumentKind)
    /// A Core Data model in one of its forms.
    case model(ModelFileForm)
    /// A NIBArchive file, or a `.nib` folder holding one.
    case nibArchive
    /// None of those: what `InputKind` says it is.
    case other(InputKind)

    /// The readers a command has besides the property-list and package ones.
    package struct Readers: OptionSet, Sendable {
        package let rawValue: Int

        package init(rawValue: Int) { self.rawValue = rawValue }

        package static let coreDataStores = Readers(rawValue: 1 << 0)
        package static let documents = Readers(rawValue: 1 << 1)
        package static let models = Readers(rawValue: 1 << 2)
        package static let nibArchives = Readers(rawValue: 1 << 3)
        package static let all: Readers = [.coreDataStores, .documents, .models, .nibArchives]
    }

    /// Classifies the input `path` names (`-` is standard input), asking only `readers`.
    ///
    /// Reads the item's status and a regular file's first bytes (a `.mom`
    /// file's whole, up to 64 MB, to tell a compiled model); nothing of a
    /// FIFO or device, so a classification never waits.
    package init(classifying path: String, readers: Readers = .all) {
        self = Self.specialReader(of: path, among: readers) ?? .other(InputKind(classifying: path))
    }

    /// The first of `readers` that takes the input at `path`, or nil when none does (and the input is then a
    /// property list, archive or package); `InputKind` is not asked.
    package static func specialReader(of path: String, among readers: Readers) -> InputClass? {
        if readers.contains(.coreDataStores), StoreCommands.handles(path) { return .coreDataStore }
        if readers.contains(.documents), let kind = DocumentKind.of(itemAtPath: path), kind != .ict { return .document(kind) }
        if readers.contains(.models), let form = ModelSupport.form(of: path) { return .model(form) }
        if readers.contains(.nibArchives), NibSupport.isNibArchive(path) { return .nibArchive }
        return nil
    }
}
