import CoreDataFiles
import Foundation
import PropertyList
import SystemPackage
import TestSupport
import Testing

/// Xcode 3 models (an `.xcdatamodel` of `elements` and `layout`, no `contents`), from Apple's sample code
/// (Fixtures/models/SOURCES.md): each read as Python's plistlib reads its `elements` archive
/// (Fixtures/models/independent_reading.py `elements`), the versioned one by its current version, Apple's store
/// of the same sample read with it; archives that are not such a model refused with their place.
@Suite struct ModelElementsReaderTests {
    static let folders = [
        "Recipes.xcdatamodel", "FancyStickiesUsingCoreData.xcdatamodel", "Migration.xcdatamodeld/Migration_Old.xcdatamodel",
        "Migration.xcdatamodeld/Migration_New.xcdatamodel",
    ]

    @Test(arguments: folders)
    func anXcodeThreeModelReadsAsPlistlibReadsIt(_ folder: String) throws {
        let document = try ManagedObjectModelReader().readDocument(atPath: ModelFixtures.path(folder))
        #expect(document.form == .modelSource)
        #expect(document.filePath == FilePath(ModelFixtures.path(folder + "/elements")))
        let expected = try ModelFixtures.independentReading("elements", folder + "/elements")
        #expect(try ModelFixtures.canonical(ModelFixtures.scriptForm(document.model)) == (try ModelFixtures.canonical(expected)))
        #expect(!document.model.entities.isEmpty)
    }

    /// What the archive says, by hand: Recipes' Recipe.thumbnailImage is Transformable (1800) with Apple's
    /// ImageToDataTransformer; Recipe.ingredients a to-many to Ingredient that cascades (rule 2), its inverse recipe.
    @Test func theRecipesModelByHand() throws {
        let model = try ManagedObjectModelReader().read(atPath: ModelFixtures.path("Recipes.xcdatamodel"))
        #expect(model.entities.map(\.name) == ["Image", "Ingredient", "Recipe", "RecipeType"])
        let recipe = try #require(model.entity(named: "Recipe"))
        #expect(recipe.className == "Recipe")
        let thumbnail = try #require(recipe.attributes.first { $0.name == "thumbnailImage" })
        #expect(thumbnail.type == .transformable && thumbnail.valueTransformerName == "ImageToDataTransformer")
        let ingredients = try #require(recipe.relationships.first { $0.name == "ingredients" })
        #expect(ingredients.destinationEntityName == "Ingredient" && ingredients.inverseName == "recipe")
        #expect(ingredients.isToMany && ingredients.maxCount == 0 && ingredients.deleteRule == .cascade)
        let name = try #require(model.entity(named: "Ingredient")?.attributes.first { $0.name == "name" })
        #expect(name.type == .string && !name.isOptional && name.defaultValue == "Ingredient Name")
    }

    /// MigrationV2's .xcdatamodeld of two Xcode 3 versions: `.xccurrentversion` names Migration_Old.
    @Test func aVersionedXcodeThreeModelReadsItsCurrentVersion() throws {
        let document = try ManagedObjectModelReader().readDocument(atPath: ModelFixtures.path("Migration.xcdatamodeld"))
        #expect(document.form == .versionedModelSource)
        #expect(document.currentVersionName == "Migration_Old")
        #expect(document.filePath == FilePath(ModelFixtures.path("Migration.xcdatamodeld/Migration_Old.xcdatamodel/elements")))
        #expect(document.model.entities.map(\.name) == ["Chef", "Ingredient", "Recipe"])
    }

    /// A folder holding `contents` beside `elements` (what Xcode 4 leaves when it saves an old model): the
    /// `contents` is read, as Xcode reads it.
    @Test func contentsBesideElementsIsWhatIsRead() throws {
        let folder = try Self.scratchModel()
        defer { try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent) }
        try FileManager.default.copyItem(
            atPath: ModelFixtures.path("CartStorage.xcdatamodeld/CartStorage.xcdatamodel/contents"), toPath: folder + "/contents")
        let document = try ManagedObjectModelReader().readDocument(atPath: folder)
        #expect(document.filePath == FilePath(folder + "/contents"))
        #expect(document.model.entities.map(\.name) == ["CDCart", "CDCartItem", "CDCartItemModifier"])
    }

    /// A compiled model where `elements` belongs: refused at `$top.root` by its class.
    @Test func aCompiledModelAsElementsIsRefusedAtItsRoot() throws {
        let folder = try Self.scratchModel()
        defer { try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent) }
        try FileManager.default.removeItem(atPath: folder + "/elements")
        try FileManager.default.copyItem(atPath: ModelFixtures.path("CartStorage.momd/CartStorage.mom"), toPath: folder + "/elements")
        let error = try #require(throws: CoreDataError.self) { try ManagedObjectModelReader().read(atPath: folder) }
        #expect(error.path == FilePath(folder + "/elements"))
        #expect(error.place == .keyPath("$top.root"))
        #expect(error.message.hasSuffix("is NSManagedObjectModel, not XDPMModel"))
    }

    /// Recipes' `elements` cut short: the property list's error at a byte offset inside the bytes kept; every
    /// shorter cut is refused too, never a crash.
    @Test func truncatedElementsAreRefusedWithTheirPlace() throws {
        let folder = try Self.scratchModel()
        defer { try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent) }
        let whole = try Data(contentsOf: URL(fileURLWithPath: folder + "/elements"))
        for length in stride(from: 0, to: whole.count, by: 997) {
            try whole.prefix(length).write(to: URL(fileURLWithPath: folder + "/elements"))
            let error = try #require(throws: CoreDataError.self) { try ManagedObjectModelReader().read(atPath: folder) }
            #expect(error.path == FilePath(folder + "/elements"))
            if case .byte(let offset) = error.place { #expect(offset <= length) }
        }
    }

    /// A copy of Recipes.xcdatamodel (elements and layout) in a fresh folder; its path.
    static func scratchModel() throws -> String {
        let parent = try ScratchFolder.make("ModelElementsReaderTests").path
        let folder = parent + "/Recipes.xcdatamodel"
        try FileManager.default.copyItem(atPath: ModelFixtures.path("Recipes.xcdatamodel"), toPath: folder)
        return folder
    }
}
