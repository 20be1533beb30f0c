import ArgumentParser
import ICTKitTooling
import SystemSupport

/// `--follow-symlinks`, of every command that writes a document or an
/// output file: without it a symbolic link where a document or an output
/// is written is refused, never written through (in a synced folder a peer
/// may plant one pointing anywhere); with it the command works on what the
/// link points to, as `sed --follow-symlinks` does.
struct LinkOptions: ParsableArguments {
    @Flag(
        name: .customLong("follow-symlinks"),
        help: "Where a symbolic link stands for the document or output file, write to what it points to (else a link is refused).")
    var followSymlinks = false

    /// The end of a message refusing a link: how to write through it anyway.
    static let hint = SymbolicLinkHint.text

    /// How `OutputFile` treats a link at an output path.
    var outputLinks: AtomicFileWriter.LinkHandling { followSymlinks ? .followed : .refused }

    /// The path a document verb works on: `path` itself, or with
    /// `--follow-symlinks` and a link at `path`, what the link resolves to
    /// (a dangling link stays as given, and the verb refuses it).
    func documentPath(_ path: String) -> String {
        followSymlinks ? Self.resolved(path) : path
    }

    /// What the link at `path` resolves to; `path` itself when it is no
    /// link, or a dangling one (which the writer then refuses).
    static func resolved(_ path: String) -> String {
        guard (try? FileInfo.of(path: path, followingLink: false))?.kind == .symbolicLink else { return path }
        return (try? SymbolicLink.resolvedPath(path)) ?? path
    }
}
