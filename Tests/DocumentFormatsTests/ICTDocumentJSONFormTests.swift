import Foundation
import PropertyList
import SystemPackage
import TestSupport
import Testing

@testable import DocumentFormats

/// The JSON form of documents. Expected field values come from the sample
/// archives as python3's plistlib reads them, and from python3's json module
/// reading the JSON this code writes; the schema is checked by python3's
/// jsonschema; bad inputs are hand-written with the key path they break.
struct ICTDocumentJSONFormTests {
    static let sampleDocs = Repository.root.appendingPathComponent("SampleDocs")
    static let sampleNames = ["Astronaut", "Cameraman", "Chelsea", "Coffee", "Hubble Deep Field", "Rocket"]
    static let schemaPath = Repository.root.appendingPathComponent("Schemas/ict-document.json-form.schema.json").path

    /// Each sample's fields as plistlib reads its archives: `data.FIRST_NAME`,
    /// `metadata.THUMBNAIL` (data in base64), … following `$top.DATA`'s UIDs.
    static let archivedFields: [String: [String: ArchivedField]] = {
        let script = """
            import plistlib, sys, json, base64
            def obj(archive, ref):
                o = archive['$objects'][ref.data] if isinstance(ref, plistlib.UID) else ref
                if o == '$null': return None
                if isinstance(o, dict) and 'NS.data' in o: return o['NS.data']
                if isinstance(o, dict) and 'NS.string' in o: return o['NS.string']
                return o
            out = {}
            for path in sys.argv[1:]:
                fields = {}
                for entry in ('data', 'metadata'):
                    with open(f'{path}/ctdocument.{entry}', 'rb') as f: archive = plistlib.load(f)
                    root = obj(archive, archive['$top']['DATA'])
                    for key, value in root.items():
                        if key == '$class': continue
                        v = obj(archive, value)
                        fields[f'{entry}.{key}'] = base64.b64encode(v).decode() if isinstance(v, bytes) else v
                out[path.rsplit('/', 1)[-1][:-4]] = fields
            json.dump(out, sys.stdout)
            """
        let paths = sampleNames.map { sampleDocs.appendingPathComponent("\($0).ict").path }
        let output = (try? python(["-c", script] + paths)) ?? Data()
        return (try? JSONDecoder().decode([String: [String: ArchivedField]].self, from: output)) ?? [:]
    }()

    /// A field plistlib read: a string (data in base64) or a number.
    enum ArchivedField: Decodable, Sendable {
        case string(String)
        case number(Double)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Double.self) { self = .number(number) } else { self = .string(try container.decode(String.self)) }
        }

        var string: String? { if case .string(let string) = self { string } else { nil } }
        var number: Double? { if case .number(let number) = self { number } else { nil } }
    }

    @Test(arguments: sampleNames)
    func exportCarriesTheArchivedFields(name: String) throws {
        let expected = try #require(Self.archivedFields[name], "python3 could not read \(name).ict")
        let document = try ICTDocumentFile(contentsOf: Self.sampleDocs.appendingPathComponent("\(name).ict").path)
        let export = try document.jsonForm(imageFileBase: nil)
        #expect(export.imageFiles.isEmpty)
        let form = export.form
        #expect(form.version == expected["data.VERSION"]?.number.map { Int($0) })
        #expect(form.firstName == expected["data.FIRST_NAME"]?.string)
        #expect(form.lastName == expected["data.LAST_NAME"]?.string)
        #expect(form.displayName == expected["data.DISPLAY_NAME"]?.string)
        #expect(form.favoriteNumber == expected["data.FAVORITE_NUMBER"]?.number)
        #expect(form.photo == (expected["data.PHOTO"]?.string).flatMap { Data(base64Encoded: $0) }.map { .embedded([UInt8]($0)) })
        #expect(form.thumbnail == (expected["metadata.THUMBNAIL"]?.string).flatMap { Data(base64Encoded: $0) }.map { .embedded([UInt8]($0)) })

        // The JSON text, as python3's json reads it, says the same.
        let text = try Self.python(["-c", "import json, sys; json.dump(json.load(sys.stdin), sys.stdout)"], input: form.jsonBytes())
        let json = try #require(try JSONSerialization.jsonObject(with: text) as? [String: Any])
        #expect(Set(json.keys) == ["version", "firstName", "lastName", "displayName", "favoriteNumber", "photo", "thumbnail"])
        #expect(json["favoriteNumber"] as? Double == expected["data.FAVORITE_NUMBER"]?.number)
        #expect((json["photo"] as? [String: String])?["$data"] == expected["data.PHOTO"]?.string)
        #expect((json["thumbnail"] as? [String: String])?["$data"] == expected["metadata.THUMBNAIL"]?.string)
    }

    @Test(arguments: sampleNames)
    func embeddedFormRoundTrips(name: String) throws {
        let expected = try #require(Self.archivedFields[name], "python3 could not read \(name).ict")
        let original = try ICTDocumentFile(contentsOf: Self.sampleDocs.appendingPathComponent("\(name).ict").path)
        let form = try original.jsonForm(imageFileBase: nil).form
        let read = try form.jsonBytes().withUnsafeBytes { try ICTDocumentJSONForm(jsonBytes: $0) }
        #expect(read == form)

        let rebuilt = try ICTDocumentFile(jsonForm: read, imageFolder: "")
        let data = try rebuilt.data()
        #expect(data.firstName == expected["data.FIRST_NAME"]?.string)
        #expect(data.lastName == expected["data.LAST_NAME"]?.string)
        #expect(data.displayName == expected["data.DISPLAY_NAME"]?.string)
        #expect(try rebuilt.metadata().displayName == expected["metadata.DISPLAY NAME"]?.string)
        #expect(data.favoriteNumber == expected["data.FAVORITE_NUMBER"]?.number)
        // The samples' photos are 560 × 560 at most, so they are stored as given.
        #expect(data.photo?.base64EncodedString() == expected["data.PHOTO"]?.string)
        let thumbnail = try PNGImage(pngBytes: [UInt8](try #require(try rebuilt.metadata().thumbnail)))
        #expect((thumbnail.width, thumbnail.height) == (280, 280))
    }

    @Test func imageFilesAreNamedFromTheBaseAndReadBesideTheJSON() throws {
        let folder = try ScratchFolder()
        let original = try ICTDocumentFile(contentsOf: Self.sampleDocs.appendingPathComponent("Coffee.ict").path)
        let export = try original.jsonForm(imageFileBase: "cup")
        #expect(export.imageFiles.map(\.name) == ["cup.photo.png", "cup.thumbnail.png"])
        #expect(export.form.photo == .file("cup.photo.png"))
        #expect(export.form.thumbnail == .file("cup.thumbnail.png"))
        #expect(export.imageFiles[0].contents == [UInt8](try #require(try original.data().photo)))
        #expect(export.imageFiles[1].contents == [UInt8](try #require(try original.metadata().thumbnail)))
        let text = String(decoding: export.form.jsonBytes(), as: UTF8.self)
        #expect(text.contains("\"photo\": {\n    \"file\": \"cup.photo.png\"\n  }"))

        for file in export.imageFiles {
            #expect(FileManager.default.createFile(atPath: folder.path + "/" + file.name, contents: Data(file.contents)))
        }
        #expect(FileManager.default.createFile(atPath: folder.path + "/cup.json", contents: Data(export.form.jsonBytes())))
        let rebuilt = try ICTDocumentFile(jsonFormAt: folder.path + "/cup.json")
        #expect(try rebuilt.data() == original.data())

        // An absolute name is used as it is, whatever the folder.
        var absolute = export.form
        absolute.photo = .file(FilePath(folder.path + "/cup.photo.png"))
        #expect(try ICTDocumentFile(jsonForm: absolute, imageFolder: "/nonexistent/").data().photo == original.data().photo)
    }

    @Test(arguments: sampleNames)
    func exportsMatchTheSchema(name: String) throws {
        let document = try ICTDocumentFile(contentsOf: Self.sampleDocs.appendingPathComponent("\(name).ict").path)
        for base in [nil, name] as [String?] {
            let complaint = try Self.schemaComplaint(try document.jsonForm(imageFileBase: base).form.jsonBytes())
            #expect(complaint == "", "\(complaint)")
        }
    }

    /// A bad input, the error kind and JSON key path it must give, and
    /// whether the schema rejects it too.
    struct BadInput: CustomTestStringConvertible, Sendable {
        var json: String
        var code: ICTDocumentError.Code
        var keyPath: String
        var schemaRejects = true
        var testDescription: String { json }
    }

    static let badInputs: [BadInput] = [
        BadInput(json: "[1]", code: .wrongType, keyPath: ""),
        BadInput(json: "\"text\"", code: .wrongType, keyPath: ""),
        BadInput(json: "{}", code: .missingKey, keyPath: "version"),
        BadInput(json: #"{"firstName": "Ada"}"#, code: .missingKey, keyPath: "version"),
        BadInput(json: #"{"version": "1"}"#, code: .wrongType, keyPath: "version"),
        BadInput(json: #"{"version": 1.0}"#, code: .wrongType, keyPath: "version", schemaRejects: false),  // JSON Schema: 1.0 == 1
        BadInput(json: #"{"version": 2}"#, code: .unsupportedVersion, keyPath: "version"),
        BadInput(json: #"{"version": 1, "firstName": 5}"#, code: .wrongType, keyPath: "firstName"),
        BadInput(json: #"{"version": 1, "lastName": true}"#, code: .wrongType, keyPath: "lastName"),
        BadInput(json: #"{"version": 1, "displayName": ["A"]}"#, code: .wrongType, keyPath: "displayName"),
        BadInput(json: #"{"version": 1, "favoriteNumber": "7"}"#, code: .wrongType, keyPath: "favoriteNumber"),
        BadInput(json: #"{"version": 1, "favoriteNumber": {"n": 7}}"#, code: .wrongType, keyPath: "favoriteNumber"),
        BadInput(json: #"{"version": 1, "photo": "Ada.photo.png"}"#, code: .wrongType, keyPath: "photo"),
        BadInput(json: #"{"version": 1, "photo": {}}"#, code: .missingKey, keyPath: "photo.file"),
        BadInput(json: #"{"version": 1, "photo": {"name": "a.png"}}"#, code: .missingKey, keyPath: "photo.file"),
        BadInput(json: #"{"version": 1, "photo": {"file": 3}}"#, code: .wrongType, keyPath: "photo.file"),
        BadInput(json: #"{"version": 1, "thumbnail": {"file": null}}"#, code: .invalidJSON, keyPath: "thumbnail.file"),
        BadInput(json: #"{"version": 1, "photo": {"$data": "!!!!"}}"#, code: .invalidJSON, keyPath: "photo.$data"),
        BadInput(json: #"{"version": 1, "thumbnail": {"$data": 12}}"#, code: .invalidJSON, keyPath: "thumbnail.$data"),
        BadInput(json: #"{"version": 1, "favoriteNumber": {"$real": "many"}}"#, code: .invalidJSON, keyPath: "favoriteNumber.$real"),
    ]

    @Test(arguments: badInputs)
    func badInputIsRefusedNamingTheKeyPath(input: BadInput) throws {
        let error = #expect(throws: ICTDocumentError.self) {
            try Array(input.json.utf8).withUnsafeBytes { try ICTDocumentJSONForm(jsonBytes: $0) }
        }
        #expect(error?.code == input.code)
        #expect(error?.keyPath == input.keyPath)
        #expect((error?.description.contains("(at \(input.keyPath))") ?? false) == !input.keyPath.isEmpty)
        if input.code == .invalidJSON { #expect(error?.propertyListError != nil) }
        if input.schemaRejects {
            #expect(try Self.schemaComplaint(Array(input.json.utf8)) != "")
        }
    }

    /// Text that is not JSON at all: the reader's error, with its line and column.
    @Test(arguments: [
        ("", PropertyListLocation.byteOffset(0)), ("{\"version\": 1,\n", .lineColumn(line: 2, column: 1)),
        ("{\"version\": 1} x", .lineColumn(line: 1, column: 16)),
    ])
    func textThatIsNotJSONSaysWhere(text: String, location: PropertyListLocation) throws {
        let error = #expect(throws: ICTDocumentError.self) {
            try Array(text.utf8).withUnsafeBytes { try ICTDocumentJSONForm(jsonBytes: $0) }
        }
        #expect(error?.code == .invalidJSON)
        #expect(error?.propertyListError?.location == location)
    }

    @Test func unreadableFilesAndDamagedPhotosAreErrors() throws {
        let folder = try ScratchFolder()
        let missingJSON = #expect(throws: ICTDocumentError.self) { try ICTDocumentFile(jsonFormAt: folder.path + "/none.json") }
        #expect(missingJSON?.code == .unreadableFile)
        #expect(missingJSON?.propertyListError?.code == .io)

        let missingPhoto = #expect(throws: ICTDocumentError.self) {
            try ICTDocumentFile(jsonForm: ICTDocumentJSONForm(photo: .file("none.png")), imageFolder: folder.path + "/")
        }
        #expect(missingPhoto?.code == .unreadableFile)
        #expect(missingPhoto?.message.contains(folder.path + "/none.png") == true)

        // Three zero bytes in base64: data, but not a PNG.
        let notPNG = #expect(throws: ICTDocumentError.self) {
            try Array(#"{"version": 1, "photo": {"$data": "AAAA"}}"#.utf8).withUnsafeBytes {
                try ICTDocumentFile(jsonForm: try ICTDocumentJSONForm(jsonBytes: $0), imageFolder: "")
            }
        }
        #expect(notPNG?.code == .damagedImage)
    }

    @Test func absentFieldsAreLeftOutAndIntegersAreNumbers() throws {
        let minimal = try Array(#"{"version": 1, "favoriteNumber": 3, "unknown": [1]}"#.utf8).withUnsafeBytes { try ICTDocumentJSONForm(jsonBytes: $0) }
        #expect(minimal == ICTDocumentJSONForm(favoriteNumber: 3))
        #expect(String(decoding: ICTDocumentJSONForm().jsonBytes(), as: UTF8.self) == "{\n  \"version\": 1\n}")
        let document = try ICTDocumentFile(jsonForm: minimal, imageFolder: "")
        #expect(try document.data() == CTData(favoriteNumber: 3))
        #expect(try document.metadata() == CTMetadata())
    }

    // MARK: python3

    /// What python3's jsonschema says is wrong with `json` against the form's schema; empty when nothing.
    static func schemaComplaint(_ json: [UInt8]) throws -> String {
        try JSONSchemaChecker.problems(in: String(decoding: json, as: UTF8.self), schemaPath: schemaPath).joined(separator: "; ")
    }

    /// Runs python3 with `arguments` and `input` on its standard input; its standard output.
    static func python(_ arguments: [String], input: [UInt8] = []) throws -> Data {
        try PythonScript.run(arguments: arguments, input: Data(input))
    }
}
