import SystemPackage
import SystemSupport

/// An error reading a Core Data file — a managed object model or a store — saying what went wrong and where:
/// a line of a model's XML, a key path in a compiled model, an entity and property, a table, row and column of
/// a store, or a byte offset.
public struct CoreDataError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file concerned, as the caller gave it; nil for bytes read from memory.
    public var path: FilePath? {
        get { pathText.map { RawFileName.filePath($0) } }
        set { pathText = newValue.map(RawFileName.text) }
    }
    /// `path` as text for the message (bytes that are not UTF-8 carried as `RawFileName` carries them).
    package var pathText: String?
    /// Where in the file the problem is.
    public var place: Place
    /// What went wrong, in words.
    public var message: String

    /// Where in a Core Data file a problem is.
    public enum Place: Hashable, Sendable {
        /// Nowhere in particular (the file as a whole).
        case none
        /// A line (1-based) of a model's XML.
        case line(Int)
        /// A key path in a compiled model, a property list or a keyed archive (`$objects[12].NSEntities`).
        case keyPath(String)
        /// An entity, and optionally one of its properties.
        case entity(String, property: String?)
        /// A table of a store, and optionally a row (its primary key) and a column.
        case table(String, row: Int64?, column: String?)
        /// A byte offset (0-based) in a file, such as a corrupt SQLite header.
        case byte(Int)
    }

    /// Makes an error at a place in the file at `path`.
    public init(path: FilePath?, place: Place, message: String) {
        self.init(pathText: path.map(RawFileName.text), place: place, message: message)
    }

    /// Makes an error at a place in a file named by text (bytes that are not UTF-8 carried as `RawFileName`
    /// carries them), for the kit's own readers.
    package init(pathText: String?, place: Place, message: String) {
        self.pathText = pathText
        self.place = place
        self.message = message
    }

    /// The place in words: `line 12`, `entity Note, property title`, `table ZNOTE, row 12, column ZDATE`;
    /// nil for ``Place/none``.
    public var placeDescription: String? {
        switch place {
        case .none: nil
        case .line(let line): "line \(line)"
        case .keyPath(let keyPath): keyPath
        case .entity(let entity, let property):
            if let property { "entity \(entity), property \(property)" } else { "entity \(entity)" }
        case .table(let table, let row, let column):
            "table \(table)" + (row.map { ", row \($0)" } ?? "") + (column.map { ", column \($0)" } ?? "")
        case .byte(let offset): "byte \(offset)"
        }
    }

    /// The error as one line: `PATH: table ZNOTE, row 12, column ZDATE: message`; the path and the place are left
    /// out when there are none.
    public var description: String {
        var parts: [String] = []
        if let pathText { parts.append(pathText) }
        if let placeDescription { parts.append(placeDescription) }
        parts.append(message)
        return parts.joined(separator: ": ")
    }
}
