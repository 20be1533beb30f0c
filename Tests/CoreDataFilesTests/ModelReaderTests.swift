import CoreDataFiles
import Foundation
import SystemPackage
import TestSupport
import Testing

/// Reading models in their four forms, each checked against an independent reading (Python's xml.etree for XML,
/// plistlib for compiled models and VersionInfo.plist) or a hand-written expectation.
@Suite struct ModelReaderTests {
    static let sources = [
        "CartStorage.xcdatamodeld/CartStorage.xcdatamodel", "GraphNext.xcdatamodeld/Model.xcdatamodel", "Library.xcdatamodel",
        "SimpleStore.xcdatamodeld/SimpleStore.xcdatamodel", "TestMigrationStore.xcdatamodeld/TestMigrationStore.xcdatamodel",
        "TestMigrationStore.xcdatamodeld/TestMigrationStore 2.xcdatamodel", "TestMigrationStore.xcdatamodeld/TestMigrationStore 3.xcdatamodel",
        "DataModel.xcdatamodeld/DataModel.xcdatamodel", "DataModel.xcdatamodeld/Version 2.xcdatamodel",
        "ECConnectorModel.xcdatamodeld/Version 1.xcdatamodel", "ECConnectorModel.xcdatamodeld/Version 2.xcdatamodel",
        "TestModel.xcdatamodeld/TestModel.xcdatamodel",
    ]

    /// Each public `.xcdatamodeld`'s current version, as its `.xccurrentversion` names it (or its only version).
    @Test(arguments: [
        ("SimpleStore.xcdatamodeld", "SimpleStore"), ("TestMigrationStore.xcdatamodeld", "TestMigrationStore 3"),
        ("DataModel.xcdatamodeld", "Version 2"), ("ECConnectorModel.xcdatamodeld", "Version 2"), ("TestModel.xcdatamodeld", "TestModel"),
    ])
    func eachPublicXcdatamodeldReadsItsCurrentVersion(_ bundle: String, _ version: String) throws {
        let document = try ManagedObjectModelReader().readDocument(atPath: ModelFixtures.path(bundle))
        #expect(document.currentVersionName == version)
        #expect(document.filePath == FilePath(ModelFixtures.path("\(bundle)/\(version).xcdatamodel/contents")))
        let expected = try ModelFixtures.independentReading("xml", "\(bundle)/\(version).xcdatamodel/contents")
        #expect(try ModelFixtures.canonical(ModelFixtures.scriptForm(document.model)) == (try ModelFixtures.canonical(expected)))
    }

    @Test(arguments: sources)
    func anXcdatamodelReadsAsXMLEtreeReadsIt(_ folder: String) throws {
        let model = try ManagedObjectModelReader().read(atPath: ModelFixtures.path(folder))
        let expected = try ModelFixtures.independentReading("xml", folder + "/contents")
        #expect(try ModelFixtures.canonical(ModelFixtures.scriptForm(model)) == (try ModelFixtures.canonical(expected)))
    }

    @Test(arguments: ["CartStorage.momd/CartStorage.mom", "GraphNext.momd/Model.mom"])
    func aCompiledModelReadsAsPlistlibReadsIt(_ file: String) throws {
        let model = try ManagedObjectModelReader().read(atPath: ModelFixtures.path(file))
        let expected = try ModelFixtures.independentReading("mom", file)
        #expect(try ModelFixtures.canonical(ModelFixtures.scriptForm(model)) == (try ModelFixtures.canonical(expected)))
    }

    /// Apple's compiler made each .momd from the .xcdatamodeld beside it: both readings give the same model, but for
    /// the value transformer, whose constant's name (NSSecureUnarchiveFromDataTransformerName) Xcode writes and whose
    /// value (NSSecureUnarchiveFromData) the compiler stores.
    @Test(arguments: [("CartStorage.xcdatamodeld", "CartStorage.momd"), ("GraphNext.xcdatamodeld", "GraphNext.momd")])
    func aCompiledModelIsItsSource(_ source: String, _ compiled: String) throws {
        var fromSource = try ManagedObjectModelReader().read(atPath: ModelFixtures.path(source))
        var fromCompiled = try ManagedObjectModelReader().read(atPath: ModelFixtures.path(compiled))
        for index in fromCompiled.entities.indices { fromCompiled.entities[index].versionHash = nil }
        for entity in fromSource.entities.indices {
            for attribute in fromSource.entities[entity].attributes.indices
            where fromSource.entities[entity].attributes[attribute].valueTransformerName == "NSSecureUnarchiveFromDataTransformerName" {
                fromSource.entities[entity].attributes[attribute].valueTransformerName = "NSSecureUnarchiveFromData"
            }
        }
        #expect(fromSource == fromCompiled)
    }

    @Test(arguments: [("CartStorage.momd", "CartStorage"), ("GraphNext.momd", "Model")])
    func aMomdCarriesTheHashesAppleComputed(_ folder: String, _ version: String) throws {
        let document = try ManagedObjectModelReader().readDocument(atPath: ModelFixtures.path(folder))
        #expect(document.currentVersionName == version)
        #expect(document.form == .versionedCompiledModel)
        let expected = try #require(try ModelFixtures.independentReading("hashes", folder + "/VersionInfo.plist", version)["hashes"] as? [String: String])
        let hashes = document.model.entityVersionHashes.mapValues { $0.map { String(format: "%02x", $0) }.joined() }
        #expect(hashes == expected)
        #expect(hashes.count == document.model.entities.count)
    }

    @Test func anXcdatamodeldReadsItsCurrentVersion() throws {
        let document = try ManagedObjectModelReader().readDocument(atPath: ModelFixtures.path("CartStorage.xcdatamodeld"))
        #expect(document.currentVersionName == "CartStorage")
        #expect(document.filePath.string.hasSuffix("CartStorage.xcdatamodeld/CartStorage.xcdatamodel/contents"))
        #expect(document.model.entities.map(\.name) == ["CDCart", "CDCartItem", "CDCartItemModifier"])
        // GraphNext's has no .xccurrentversion: its one version is current.
        let single = try ManagedObjectModelReader().readDocument(atPath: ModelFixtures.path("GraphNext.xcdatamodeld"))
        #expect(single.currentVersionName == "Model")
        #expect(single.model.entities.map(\.name) == ["CDEntity", "CDRelationship"])
    }

    /// An `.xccurrentversion` without `_XCCurrentVersionName` (CTDataStoreManager's, an empty dictionary), as
    /// Xcode opens it: the one version is current; with two to choose from, the file is refused at the key.
    @Test func anXccurrentversionWithoutANameTakesTheOnlyVersion() throws {
        let folder = try ScratchFolder.make("ModelReaderTests").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bundle = folder + "/CartStorage.xcdatamodeld"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: ModelFixtures.path("CartStorage.xcdatamodeld"), toPath: bundle)
        try FileManager.default.removeItem(atPath: bundle + "/.xccurrentversion")
        try FileManager.default.copyItem(
            atPath: ModelFixtures.path("CTDataStoreManager-Model.xccurrentversion"), toPath: bundle + "/.xccurrentversion")
        let document = try ManagedObjectModelReader().readDocument(atPath: bundle)
        #expect(document.currentVersionName == "CartStorage")
        #expect(document.model.entities.map(\.name) == ["CDCart", "CDCartItem", "CDCartItemModifier"])
        try FileManager.default.copyItem(atPath: bundle + "/CartStorage.xcdatamodel", toPath: bundle + "/CartStorage 2.xcdatamodel")
        do {
            _ = try ManagedObjectModelReader().readDocument(atPath: bundle)
            Issue.record("two versions and no name were read")
        } catch {
            #expect(error.path == FilePath(bundle + "/.xccurrentversion"))
            #expect(error.place == .keyPath("_XCCurrentVersionName"))
            #expect(error.message == "missing, and the .xcdatamodeld holds 2 .xcdatamodel versions to choose from")
        }
    }

    /// The hand-written model's features, as its XML says (Fixtures/models/Library.xcdatamodel/contents).
    @Test func inheritanceIndexesConstraintsAndConfigurations() throws {
        let document = try ManagedObjectModelReader().readDocument(atPath: ModelFixtures.path("Library.xcdatamodel"))
        let model = document.model
        #expect(model.versionIdentifiers == ["v3"])
        #expect(model.configurations == ["Cloud": ["Book", "Chapter"], "Local": ["Shelf"]])
        let item = try #require(model.entity(named: "Item"))
        #expect(item.isAbstract && item.className == "LibraryItem")
        #expect(
            item.fetchIndexes == [FetchIndexDescription(name: "byTitle", elements: [.init(property: "title"), .init(property: "added", ascending: false)])])
        #expect(model.superentities(of: "Book").map(\.name) == ["Item"])
        #expect(model.subentities(of: "Item").map(\.name) == ["Book"])
        #expect(model.rootEntity(of: "Book")?.name == "Item")
        #expect(model.allAttributes(of: "Book").map(\.name) == ["added", "title", "isbn", "pages", "cover", "cache"])
        #expect(model.allRelationships(of: "Book").map(\.name) == ["shelf", "chapters"])
        let book = try #require(model.entity(named: "Book"))
        #expect(book.uniquenessConstraints == [["isbn"]])
        let chapters = try #require(book.relationships.first)
        #expect(chapters.isToMany && chapters.isOrdered && chapters.minCount == 1 && chapters.maxCount == 40 && chapters.deleteRule == .cascade)
        #expect(book.attributes.first { $0.name == "cover" }?.allowsExternalBinaryDataStorage == true)
        #expect(book.attributes.first { $0.name == "cache" }?.isTransient == true)
        #expect(model.entity(named: "Chapter")?.versionHashModifier == "split")
        #expect(model.entity(named: "Chapter")?.relationships.first?.deleteRule == .deny)
        #expect(model.entity(named: "Shelf")?.relationships.first?.deleteRule == .noAction)
        // Lines of the XML: entity Book on line 12, its attribute cover on 15, its relationship chapters on 17.
        #expect(document.locations.line(ofEntityAt: 1) == 12)
        #expect(document.locations.line(ofAttributeAt: 2, entityAt: 1) == 15)
        #expect(document.locations.line(ofRelationshipAt: 0, entityAt: 1) == 17)
    }

    @Test func theJSONFormHoldsTheWholeModel() throws {
        let model = try ManagedObjectModelReader().read(atPath: ModelFixtures.path("CartStorage.momd"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(model.jsonText())) as? [String: Any])
        let entities = try #require(object["entities"] as? [[String: Any]])
        #expect(entities.map { $0["name"] as? String } == ["CDCart", "CDCartItem", "CDCartItemModifier"])
        let cart = entities[0]
        #expect((cart["attributes"] as? [Any])?.count == 15)
        let items = try #require((cart["relationships"] as? [[String: Any]])?.first)
        #expect(items["destination"] as? String == "CDCartItem" && items["toMany"] as? Bool == true && items["deleteRule"] as? String == "Cascade")
        // VersionInfo.plist's CDCart hash, base64 (as plistlib gives it: 67137bd0…).
        #expect((cart["versionHash"] as? String).flatMap { Data(base64Encoded: $0) }?.prefix(4) == Data([0x67, 0x13, 0x7B, 0xD0]))
    }
}
