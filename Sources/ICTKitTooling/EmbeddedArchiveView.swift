import DataLayers
import EmbeddedLayers
import KeyedArchive
import NIBArchive
import PropertyList
import TypedStream

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `ict inspect --expand`: archives held in data values (the library's
/// `EmbeddedArchives`), shown decoded in place in the tree, marked
/// `embedded`, and listed with their key paths in the JSON report's
/// `"embedded"`. This only prints.
package struct EmbeddedArchiveView {
    package let archives: EmbeddedArchives
    /// How many data values deep the data being shown is.
    package let nesting: Int

    package init(archives: EmbeddedArchives, nesting: Int) {
        self.archives = archives
        self.nesting = nesting
    }

    /// Writes `bytes` expanded, as the tree's value of a data value: its
    /// summary, `embedded` and its form, then its decoded tree; false (and
    /// nothing written) when they hold no archive, or nest too deep (which
    /// `jsonValue(_:)`, called first, reports).
    package func write(_ bytes: Data, indent: Int, to output: inout StandardOutput) -> Bool {
        guard nesting < archives.maximumNesting, let form = archives.form(of: bytes) else { return false }
        output.write(TreePrinter.dataSummary(bytes) + " embedded \(form)")
        let inner = EmbeddedArchiveView(archives: archives, nesting: nesting + 1)
        if case .compressed(let compressed) = form {
            writeLayers(bytes, compressed, indent: indent, to: &output)
            return true
        }
        if form == .typedStream {
            let read = bytes.withUnsafeBytes { buffer in Result { () throws(TypedStreamError) in try archives.typedStreams.read(buffer) } }
            switch read {
            case .success(let document): writeLines(TypedStreamSupport.treeLines(document), indent: indent, to: &output)
            case .failure(let error): output.write(TerminalText.escaped(" that does not read: \(error.description)"))
            }
            return true
        }
        if form == .nibArchive {
            let limits = archives.nibArchives.limits
            let read = bytes.withUnsafeBytes { buffer in
                Result { () throws(NIBArchiveError) in try NibObjectGraph(archives.nibArchives.read(buffer)).treeText(limits: limits) }
            }
            switch read {
            case .success(let text):
                writeLines(text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init), indent: indent, to: &output)
            case .failure(let error): output.write(TerminalText.escaped(" that does not read: \(error.description)"))
            }
            return true
        }
        let value: PropertyListValue
        do throws(PropertyListError) {
            value = try archives.read(bytes).value
        } catch {
            output.write(TerminalText.escaped(" that does not read: \(Self.describe(error))"))
            return true
        }
        output.write(" => ")
        if KeyedArchiveObjectGraph.looksLikeArchive(value), let graph = try? KeyedArchiveObjectGraph(propertyList: value) {
            do throws(KeyedArchiveError) {
                try ArchiveGraphView.writeTree(graph, indent: indent, to: &output, expanding: inner)
            } catch {
                output.write(TerminalText.escaped("NSKeyedArchiver archive that is not shown: \(error.description)"))
            }
        } else {
            var printer = TreePrinter(output: output, expanding: inner)
            printer.write(value, indent: indent)
            output = printer.output
        }
        return true
    }

    /// `lines` in braces, one level in from `indent`.
    private func writeLines(_ lines: [String], indent: Int, to output: inout StandardOutput) {
        let pad = String(repeating: "  ", count: indent + 1)
        output.write(" {\n")
        for line in lines { output.write(pad + TerminalText.escaped(line) + "\n") }
        output.write(String(repeating: "  ", count: indent) + "}")
    }

    /// Compressed data's layers: what it inflates to (as a data value's
    /// contents are shown: a property list or archive expanded, or a
    /// protocol buffer as `protoc --decode_raw` prints it), or why it does not.
    private func writeLayers(_ bytes: Data, _ compressed: CompressedForm, indent: Int, to output: inout StandardOutput) {
        let found: EmbeddedArchive
        do throws(EmbeddedKeyPathError) {
            // The layers of this one data value: found as those of a value holding only it.
            guard let archive = try archives.find(in: .data(bytes)).first else { return }
            found = archive
        } catch {
            output.write(TerminalText.escaped(" that is not shown: \(error.message)"))
            return
        }
        guard let inflated = found.inflated else {
            output.write(TerminalText.escaped(" that does not inflate: \(found.layerError?.description ?? "unknown reason")"))
            return
        }
        output.write(" => inflated ")
        if let fields = found.nested.first?.fields {
            let pad = String(repeating: "  ", count: indent + 1)
            output.write(TreePrinter.dataSummary(inflated) + " embedded \(EmbeddedArchiveForm.protocolBuffer) {\n")
            for line in ProtocolBufferText.text(of: fields).split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
                output.write(pad + TerminalText.escaped(String(line)) + "\n")
            }
            output.write(String(repeating: "  ", count: indent) + "}")
        } else if !EmbeddedArchiveView(archives: archives, nesting: nesting + 1).write(inflated, indent: indent, to: &output) {
            output.write(TreePrinter.dataSummary(inflated))
        }
    }

    /// The report's `"embedded"`: each archive found in a data value of
    /// `value`, decoded as `inspect` shows a file of its kind.
    ///
    /// - Throws: `EmbeddedKeyPathError` when archives nest too deep.
    package static func jsonValue(_ value: PropertyListValue, _ archives: EmbeddedArchives) throws(EmbeddedKeyPathError) -> JSONValue {
        .array(try archives.find(in: value).map(json))
    }

    private static func json(_ archive: EmbeddedArchive) -> JSONValue {
        var members: [(String, JSONValue)] = [("keyPath", .string(archive.keyPath.description))]
        members.append(("kind", .string(archive.form.kindName)))
        members.append(("format", .string(archive.form.formatName)))
        members.append(("length", .integer(archive.bytes.count)))
        if case .compressed = archive.form {
            if let inflated = archive.inflated { members.append(("inflatedLength", .integer(inflated.count))) }
            if let error = archive.layerError {
                members.append(("error", .object([("message", .string(error.message)), ("location", .string("byte \(error.offset)"))])))
            }
        } else if let fields = archive.fields {
            members.append(("fields", .propertyList(ProtocolBufferPropertyList.fieldsForm(fields))))
        } else if let document = archive.typedStream {
            members.append(("typedStream", .propertyList(TypedStreamSupport.jsonForm(document))))
        } else if let error = archive.typedStreamError {
            members.append(("error", .object([("message", .string(error.message)), ("location", .string("byte \(error.byteOffset)"))])))
        } else if archive.form == .nibArchive, let graph = archive.value {
            members.append(("nibArchive", .propertyList(graph)))
        } else if let error = archive.nibArchiveError {
            let location = error.byteOffset.map { "byte \($0)" } ?? ""
            members.append(("error", .object([("message", .string(error.message)), ("location", .string(location))])))
        } else if let value = archive.value {
            if KeyedArchiveObjectGraph.looksLikeArchive(value), let graph = try? KeyedArchiveObjectGraph(propertyList: value) {
                do throws(KeyedArchiveError) {
                    members.append(("archive", .propertyList(try ArchiveGraphView.jsonValue(graph))))
                } catch {
                    members.append(("error", .object([("message", .string(error.message)), ("location", .string(error.keyPath.description))])))
                }
            } else {
                members.append(("value", .propertyList(value)))
            }
        } else if let error = archive.error {
            members.append(("error", .object([("message", .string(error.message)), ("location", .string(error.location.description))])))
        }
        members.append(("embedded", .array(archive.nested.map(json))))
        return .object(members)
    }

    private static func describe(_ error: PropertyListError) -> String {
        error.location == .none ? error.message : "\(error.message) (\(error.location) of the data)"
    }
}
