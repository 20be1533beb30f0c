import SystemSupport

/// Writes command output where the user asked, never leaving a half-written file.
///
/// `-` is standard output; any other path is written by `AtomicFileWriter`
/// (a device or pipe directly, a regular file under a temporary name beside
/// it, renamed over it by `commit()`).
package final class OutputFile {
    /// The writer of a path; nil for standard output (`-`).
    private let writer: AtomicFileWriter?

    /// True when `path` is `-` or names a terminal.
    package static func isTerminal(_ path: String) -> Bool {
        path == "-" ? Terminal.isTerminal(StandardDescriptor.output) : Terminal.isTerminal(path: path)
    }

    /// Writes all of `bytes` to `path` and commits; with `expected`, only
    /// over the file that stamp describes (see `commit(expecting:)`).
    package static func write(_ bytes: [UInt8], to path: String, expecting expected: FileStamp? = nil, links: AtomicFileWriter.LinkHandling = .refused)
        throws(CommandFailure)
    {
        let output = try OutputFile(path: path, links: links)
        let result: Result<Void, CommandFailure> = bytes.withUnsafeBytes { buffer in
            Result { () throws(CommandFailure) in try output.write(buffer) }
        }
        try result.get()
        try output.commit(expecting: expected)
    }

    /// Opens the destination named `path`: standard output for `-`, else
    /// as `AtomicFileWriter.init(path:links:)` (a symbolic link refused
    /// unless `links` says otherwise).
    package init(path: String, links: AtomicFileWriter.LinkHandling = .refused) throws(CommandFailure) {
        if path == "-" {
            writer = nil
            return
        }
        do throws(AtomicFileWriter.Failure) {
            writer = try AtomicFileWriter(path: path, links: links)
        } catch {
            throw Self.commandFailure(error)
        }
    }

    /// Appends `bytes`; on failure the destination is abandoned (standard
    /// output's failure ends the process, as `StandardOutput` says).
    package func write(_ bytes: UnsafeRawBufferPointer) throws(CommandFailure) {
        guard let writer else {
            StandardOutput.writeAll(bytes)
            return
        }
        do throws(AtomicFileWriter.Failure) {
            try writer.write(bytes)
        } catch {
            // A pipe named by path (`-o /dev/stdout | head -1`) whose reader is gone: a clean stop, as on standard output.
            if BrokenPipe.isBrokenPipe(error.systemError) { CurrentProcess.exit(0) }
            throw Self.commandFailure(error)
        }
    }

    /// Finishes, as `AtomicFileWriter.commit(expecting:)`; nothing to do for
    /// standard output. Throws `CommandFailure.changed` when the file changed
    /// since it was read.
    package func commit(expecting expected: FileStamp? = nil) throws(CommandFailure) {
        do throws(AtomicFileWriter.Failure) {
            try writer?.commit(expecting: expected)
        } catch {
            throw Self.commandFailure(error)
        }
    }

    /// Removes the temporary file, leaving any old file as it was.
    package func abandon() {
        writer?.abandon()
    }

    private static func commandFailure(_ failure: AtomicFileWriter.Failure) -> CommandFailure {
        if failure.changedSinceRead { return .changed }
        if failure.step == .symbolicLink { return CommandFailure(failure.description + SymbolicLinkHint.text) }
        return CommandFailure(failure.description)
    }
}

/// The end of a message refusing a symbolic link where a document or an
/// output is written: how to write through it anyway (`--follow-symlinks`).
package enum SymbolicLinkHint {
    package static let text = "; name what it points to, or pass --follow-symlinks to write there"
}
