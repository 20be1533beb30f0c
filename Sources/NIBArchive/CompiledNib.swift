import KeyedArchive
import PropertyList
import SystemPackage
import SystemSupport

/// A compiled nib as it is on disk: one file, or a folder of them (an iOS
/// `X.nib/` with `objects-13.0+.nib` and `runtime.nib`, or an old Interface
/// Builder nib folder with `keyedobjects.nib`), each member read whole.
public struct CompiledNib: Sendable {
    /// What one member file holds.
    public enum Contents: Sendable {
        /// A `NIBArchive` file.
        case nibArchive(NIBArchiveFile)
        /// A keyed archive (Interface Builder's `keyedobjects.nib`).
        case keyedArchive(KeyedArchiveObjectGraph)
    }

    /// One file of the nib.
    public struct Member: Sendable {
        /// The file's name inside the folder; for a nib that is one file, its path as given.
        public var name: String
        /// What it holds.
        public var contents: Contents

        /// The member's object graph.
        ///
        /// - Throws: `NIBArchiveError` `.notAKeyedNib` for a keyed archive that is not a nib.
        public func graph() throws(NIBArchiveError) -> NibObjectGraph {
            switch contents {
            case .nibArchive(let file): NibObjectGraph(file)
            case .keyedArchive(let archive): try NibObjectGraph(keyedArchive: archive)
            }
        }
    }

    /// The nib's files: one for a file; for a folder, each file that starts as
    /// a `NIBArchive` or a binary keyed archive, by name (others, such as
    /// `designable.nib`'s XML and typedstream `objects.nib`, are left out).
    public var members: [Member]

    /// Reads the nib at `filePath`: a file, or a folder and the nib files in
    /// it (not its subfolders). A name that is not UTF-8 is opened byte for byte.
    ///
    /// Reads every member whole (mapped).
    ///
    /// - Throws: `NIBArchiveError` with `path` set to the member: `.io`
    ///   when it cannot be read or a folder holds no nib file, what
    ///   `NIBArchiveReader` throws for a `NIBArchive` member,
    ///   `.invalidKeyedArchive` for a keyed archive that does not read.
    public init(contentsOf filePath: FilePath, limits: NIBArchiveLimits = .default) throws(NIBArchiveError) {
        try self.init(contentsOfPath: RawFileName.text(filePath), limits: limits)
    }

    /// `init(contentsOf:limits:)` for a path held as text (bytes that are not
    /// UTF-8 carried as `RawFileName` carries them), for the kit's own callers.
    ///
    /// - Throws: as `init(contentsOf:limits:)`.
    package init(contentsOfPath path: String, limits: NIBArchiveLimits = .default) throws(NIBArchiveError) {
        let info: FileInfo
        do {
            info = try FileInfo.of(path: path)
        } catch {
            throw NIBArchiveError(.io, at: nil, pathText: path, "cannot read: \(error)")
        }
        guard info.kind == .directory else {
            guard let member = try Self.member(at: path, name: path, limits: limits, required: true) else {
                throw NIBArchiveError(.notANibArchive, at: 0, pathText: path, "not a NIBArchive or keyed archive nib")
            }
            members = [member]
            return
        }
        let entries: [DirectoryEntry]
        do {
            entries = try Directory.entries(atPath: path)
        } catch {
            throw NIBArchiveError(.io, at: nil, pathText: path, "cannot list the folder: \(error)")
        }
        var members: [Member] = []
        for name in entries.map(\.name).sorted() where name.hasSuffix(".nib") {
            let memberPath = path.hasSuffix("/") ? path + name : path + "/" + name
            guard (try? FileInfo.of(path: memberPath))?.kind == .regular else { continue }
            if let member = try Self.member(at: memberPath, name: name, limits: limits, required: false) { members.append(member) }
        }
        guard !members.isEmpty else {
            throw NIBArchiveError(.io, at: nil, pathText: path, "the folder holds no NIBArchive or keyed archive .nib file")
        }
        self.members = members
    }

    /// Reads one file; nil for a file that is neither kind when `required` is false.
    private static func member(at path: String, name: String, limits: NIBArchiveLimits, required: Bool)
        throws(NIBArchiveError) -> Member?
    {
        let file: MappedFile
        do {
            file = try MappedFile(path: path)
        } catch {
            throw NIBArchiveError(.io, at: nil, pathText: path, error.message)
        }
        if NIBArchiveReader.hasMagic(file.bytes) {
            do {
                return Member(name: name, contents: .nibArchive(try NIBArchiveReader(limits: limits).read(file.bytes)))
            } catch {
                var located = error
                located.pathText = path
                throw located
            }
        }
        guard file.bytes.starts(with: Array("bplist00".utf8)) else {
            if required { throw NIBArchiveError(.notANibArchive, at: 0, pathText: path, "not a NIBArchive or keyed archive nib") }
            return nil
        }
        do {
            return Member(name: name, contents: .keyedArchive(try KeyedArchiveReader().read(file.bytes)))
        } catch  where !required && (error.code == .notAnArchive || error.code == .wrongArchiver) {
            return nil  // A folder's other binary property lists (info.nib) are no nib.
        } catch {
            var offset: Int?
            if case .byteOffset(let at)? = error.underlying?.location { offset = at }
            throw NIBArchiveError(.invalidKeyedArchive, at: offset, pathText: path, error.description)
        }
    }
}
