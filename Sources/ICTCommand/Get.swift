import ArgumentParser
import DocumentFormats
import EmbeddedLayers
import ICTKitTooling
import KeyedArchive
import NIBArchive
import PropertyList
import SystemSupport

extension Ict {
    /// `ict get`: print the value at a key path.
    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "get",
            abstract: "Print the value at a key path of a property list, keyed archive or .ict document.",
            discussion: """
                raw (the default) prints a string, number, boolean or date (ISO 8601, UTC) as \
                text, data as base64, an array's count and a dictionary's keys one a line, \
                as plutil -extract KEYPATH raw does; xml1, binary1 and json write the value \
                as a property list of its own. A missing key, an index past the end or a \
                step through a value that is not a container fails with exit status 1.

                A key ending in ! steps into the data value it reaches, read as a property \
                list (binary, XML, JSON or OpenStep) or keyed archive, as the Go tool ply \
                does: in a Terminal profile, Font! is the archive in Font's data and \
                Font!.$top.root.NSName its font's name; a.b!.c!.d goes two levels down (at \
                most 16). An NSArchiver typed stream reads as its root decoded by class \
                (attributedBody!.string), a NIB archive as its object graph \
                (nib!.objects.3.className), gzip or zlib data as what it inflates to. \\! is \
                a ! in a key. set, insert and remove take the same steps and write each data \
                value back in its own form (binary stays binary, XML stays XML) inside the \
                file, which keeps its own. A step into a value that is not data, or data that \
                does not read (the message gives the byte offset inside it), and a change \
                inside a typed stream, NIB archive or compressed data (read only) fail with \
                exit status 1.

                In an NSArchiver typed stream (a file, standard input or a FIFO) a key path is \
                dot-separated indices from the root object: at an object an index picks one of \
                the fields its coder wrote (every group in order, from 0), at a C array or struct \
                an element or field; the empty key path is the root. So in an iMessage \
                attributedBody, 0 is the text's NSString and 0.0 its bytes, 1 the first run's \
                attribute number and 2 its length. The value is printed decoded by class name \
                (a string as its text, a number as itself, an attributed string or other object \
                in the JSON form convert --format json gives it).

                In a Core Data store (or a UIManagedDocument package) the key path is \
                Entity[pN].property, Entity[pN] (the whole object) or the object's \
                x-coredata:// URI; without --model, properties are the table's columns (ZTITLE).

                In a compiled nib (a NIBArchive file, or a folder ending in .nib holding \
                them) the key path is objects.N (object N: its class name and fields), \
                objects.N.KEY (its first field named KEY; a key may hold dots, as NS.bytes \
                does), objects.N.KEY.M (the M-th field named KEY, from 0: an array's \
                elements are all UINibEncoderEmptyKey), root, topLevelObjects or \
                topLevelObjects.M. In a folder, MEMBER/KEYPATH picks the member file \
                (runtime.nib/objects.3.UILabel); without it, the first. raw prints an \
                object as its label (#3 UIView) and its fields one a line, a string \
                object's text quoted, data as hex; the other formats write a reference \
                as a UID and an object as {"index", "className", "fields"}. A UIColor or \
                UIFont object is also shown decoded, as inspect shows it: after its label \
                (#8 UIFont = ".SFUIDisplay-Bold" 20 pt), and as "readable".
                """
        )

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case raw, xml1, binary1, json
        }

        @OptionGroup var arguments: KeyPathArguments

        @Option(help: "raw, xml1, binary1 or json.")
        var format: Format = .raw

        @Option(name: [.short, .customLong("output")], help: "Write here instead of standard output.")
        var output: String?

        @OptionGroup var links: LinkOptions

        @Option(help: "For a Core Data store: the model (.xcdatamodeld, .xcdatamodel, .momd, .mom) to type its values by.")
        var model: String?

        func validate() throws {
            if arguments.json, output == nil, format != .raw { throw ValidationError("--json needs -o: standard output carries the report") }
        }

        func run() throws {
            try GetJob(
                file: arguments.file, keyPath: arguments.keyPath, limits: arguments.input.limits, json: arguments.json,
                format: format, output: output, outputLinks: links.outputLinks, model: model
            ).run()
        }
    }

    /// One `ict get` as the command line asked for it, without
    /// argument-parser's property wrappers (see `QuickCommand`).
    struct GetJob {
        var file: String
        var keyPath: String
        var limits = PropertyListLimits.default
        var json = false
        var format = Get.Format.raw
        var output: String?
        /// A symbolic link at `output`: refused unless `--follow-symlinks`.
        var outputLinks = AtomicFileWriter.LinkHandling.refused
        /// For a Core Data store: the model to type its values by.
        var model: String?

        func run() throws {
            let report = Get.report(json: json)
            let value: PropertyListValue
            let problem: (String) -> Problem
            var rawText: String?
            let reader = InputClass.specialReader(of: file, among: [.coreDataStores, .nibArchives])
            if reader == .coreDataStore {
                report.fields.path = Problem.inputName(file)
                report.fields.keyPath = keyPath
                do throws(Problem) { value = try StoreCommands.value(in: file, model: model, at: keyPath) } catch { throw report.fail(error) }
                problem = { [file, keyPath] message in Problem(path: file, message, keyPath: keyPath) }
            } else if reader == .nibArchive {
                report.fields.path = Problem.inputName(file)
                report.fields.keyPath = keyPath
                do throws(Problem) {
                    (value, rawText) = try NibSupport.value(file, keyPath: keyPath, maxInputSize: limits.maximumInputSize)
                } catch {
                    throw report.fail(error)
                }
                problem = { [file, keyPath] message in Problem(path: file, message, keyPath: keyPath) }
            } else if let found = KeyPathTarget.valueInBinaryFile(file, keyPath: keyPath, limits: limits) {
                report.fields.path = Problem.inputName(file)
                report.fields.keyPath = keyPath
                value = found
                problem = { [file, keyPath] message in Problem(path: file, message, keyPath: keyPath) }
            } else {
                // Opened once, and a stream read once, for both looks at it: a typed stream, else a property list.
                let input = try KeyPathTarget.input(file, keyPath: keyPath, limits: limits, report: report)
                if input.address.entry == nil, let found = TypedStreamSupport.value(in: input.file, path: file, keyPath: keyPath) {
                    do { value = try found.get() } catch { throw report.fail(error) }
                    problem = { [file, keyPath] message in Problem(path: file, message, keyPath: keyPath) }
                } else {
                    let target = try KeyPathTarget.open(input, limits: limits, report: report).target
                    do throws(Problem) { value = try target.foundValue() } catch { throw report.fail(error) }
                    // A UUID, URL, rect, colour, font, attributed string… in a keyed archive (in the file, or in a
                    // data value a `!` step reads): printed as it reads.
                    rawText = EmbeddedArchives().readableValue(in: target.propertyList, at: target.embeddedKeyPath)?.readableText
                    problem = { message in target.problem(message) }
                }
            }
            report.fields.type = ValueTypeName.of(value)
            report.fields.value = .propertyList(value)
            let bytes: [UInt8]
            do throws(PropertyListError) {
                switch format {
                case .raw: bytes = Array(((rawText ?? PlutilTextForm.raw(value)) + "\n").utf8)
                case .xml1: bytes = try XMLPropertyListWriter().encode(value)
                case .binary1: bytes = try BinaryPropertyListWriter().encode(value)
                case .json: bytes = try JSONPropertyListWriter().encode(value) + [UInt8(ascii: "\n")]
                }
            } catch {
                throw report.fail(problem(error.message))
            }
            if let output {
                if let problem = OutputPlacement.insideInputProblem(output, reading: file) { throw report.fail(problem) }
                do { try OutputFile.write(bytes, to: output, links: outputLinks) } catch {
                    throw report.fail(Problem(path: Problem.outputName(output), error.description))
                }
            } else if !json {
                if format == .binary1, OutputFile.isTerminal("-") {
                    throw report.fail(Problem(path: "ict", "binary output is not sent to a terminal; use -o FILE"))
                }
                StandardOutput.writeAll(bytes)
            }
            try report.finish()
        }
    }
}

extension Ict.Get: TypedReportingCommand {
    static let reportName = "get"

    /// `Schemas/cli/get.schema.json`.
    struct Fields: KeyPathReportFields {
        var path: String?
        var keyPath: String?
        /// `plutil`'s name of the value's type (`ValueTypeName`).
        var type: String?
        /// The value, in the lossless JSON form of a property list (`.propertyList`).
        var value: JSONValue?
    }
}
