import Foundation
import TestSupport
import Testing

/// `ict inspect`, `convert --format json` and `validate` on Core Data models, end to end.
struct ModelCommandTests {
    private static func fixture(_ relative: String) -> String {
        Repository.path("Tests/CoreDataFilesTests/Fixtures/models/\(relative)")
    }

    @Test func inspectPrintsTheModelAsATree() throws {
        let run = try ICTRunner.run(["inspect", Self.fixture("Library.xcdatamodel")])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "model: 4 entities")
        #expect(lines.contains("  entity Book (inherits Item)"))
        #expect(lines.contains("    attribute cover: Binary, optional, external storage"))
        #expect(lines.contains("    relationship chapters → Chapter: to-many, optional, count 1…40, ordered, inverse book, delete rule Cascade"))
        #expect(lines.contains("  configuration Local: Shelf"))
    }

    /// A .mom is a keyed archive: inspect shows the model, convert --format xml1 still converts the property list.
    @Test func aMomIsAModelToInspectAndAPropertyListToConvert() throws {
        let mom = Self.fixture("CartStorage.momd/CartStorage.mom")
        let inspect = try ICTRunner.run(["inspect", mom])
        #expect(inspect.status == 0)
        #expect(inspect.stdout.hasPrefix("model: 3 entities\n  entity CDCart\n"))
        let convert = try ICTRunner.run(["convert", mom, "--format", "xml1", "-o", "-"])
        #expect(convert.status == 0)
        #expect(convert.stdout.contains("<string>NSKeyedArchiver</string>"))
    }

    @Test func inspectJSONAndConvertGiveTheWholeModel() throws {
        let momd = Self.fixture("CartStorage.momd")
        let inspect = try ICTRunner.run(["inspect", "--json", momd])
        #expect(inspect.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any])
        #expect(report["kind"] as? String == "model")
        let model = try #require(report["model"] as? [String: Any])
        let convert = try ICTRunner.run(["convert", momd, "--format", "json"])
        #expect(convert.status == 0)
        let converted = try #require(try JSONSerialization.jsonObject(with: Data(convert.stdout.utf8)) as? [String: Any])
        #expect(NSDictionary(dictionary: converted) == NSDictionary(dictionary: model))
        let entities = try #require(converted["entities"] as? [[String: Any]])
        // Entity names and CDCartItem's relationships as the .mom's plistlib reading gives them (CartStorage.mom).
        #expect(entities.map { $0["name"] as? String } == ["CDCart", "CDCartItem", "CDCartItemModifier"])
        let relationships = try #require(entities[1]["relationships"] as? [[String: Any]])
        #expect(relationships.map { $0["name"] as? String } == ["cart", "modifiers"])
        #expect(relationships.map { $0["inverse"] as? String } == ["items", "item"])
    }

    @Test func validatePrintsEachFindingWithItsLine() throws {
        let folder = Self.fixture("bad/dangling.xcdatamodel")
        let run = try ICTRunner.run(["validate", folder])
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 6)
        #expect(
            lines.first
                == "\(folder)/contents:5:1: error: a second property named name (at entity Folder, property name)")
        #expect(lines.last == "\(folder)/contents:13:1: error: a second entity named Note; the first is entity 2 (line 9) (at entity Note)")
    }

    @Test func validateAcceptsTheFourForms() throws {
        let paths = ["CartStorage.xcdatamodeld", "CartStorage.xcdatamodeld/CartStorage.xcdatamodel", "CartStorage.momd", "CartStorage.momd/CartStorage.mom"]
            .map(Self.fixture)
        let run = try ICTRunner.run(["validate"] + paths)
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        #expect(run.stdout.split(separator: "\n").count == 4)
        #expect(run.stdout.contains("\(paths[2]): valid Core Data model, .momd (compiled model versions)"))
    }

    @Test func aModelThatCannotBeReadIsAnErrorWithItsPlace() throws {
        let run = try ICTRunner.run(["inspect", Self.fixture("bad/unknown-type.xcdatamodel")])
        #expect(run.status == 1)
        #expect(run.stderr == "\(Self.fixture("bad/unknown-type.xcdatamodel"))/contents:5:1: error: attribute Note.size has an unknown type \"Integer 128\"\n")
        let mom = try ICTRunner.run(["validate", Self.fixture("bad/unknown-type.mom")])
        #expect(mom.status == 1)
        #expect(mom.stderr.contains("unknown type code 150 (at $objects[26].NSAttributeType)"))
    }
}
