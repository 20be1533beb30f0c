import CoreDataFiles

/// An `.xcdatamodel`'s `contents` XML: reading it throws a `CoreDataError` or gives a model without an
/// inheritance cycle (the reader refuses them) whose lines are those of its entities; the validator, the tree and
/// the JSON form never crash on it.
func fuzzModelContents(_ bytes: [UInt8]) {
    let model: ManagedObjectModel
    do {
        model = try ManagedObjectModelReader().read(modelContents: bytes, path: "contents")
    } catch {
        require(error.path == "contents" && !error.message.isEmpty, "an error without its path or message: \(error)")
        return
    }
    checkModel(model)
}

/// A compiled model's bytes (`.mom`), as `fuzzModelContents` checks the XML.
func fuzzCompiledModel(_ bytes: [UInt8]) {
    let model: ManagedObjectModel
    do {
        model = try ManagedObjectModelReader().read(compiledModel: bytes, path: "model.mom")
    } catch {
        require(error.path == "model.mom" && !error.message.isEmpty, "an error without its path or message: \(error)")
        return
    }
    checkModel(model)
}

/// What holds of every model read.
private func checkModel(_ model: ManagedObjectModel) {
    require(ModelValidator.firstInheritanceCycle(in: model) == nil, "a model with an inheritance cycle was read")
    for entity in model.entities {
        let chain = model.superentities(of: entity.name)
        require(chain.count < model.entities.count, "entity \(entity.name) has \(chain.count) superentities in a model of \(model.entities.count)")
        // A name written twice is the validator's finding; the look-ups by name give the first entity.
        guard model.entity(named: entity.name) == entity else { continue }
        require(
            model.allAttributes(of: entity.name).count >= entity.attributes.count,
            "entity \(entity.name) has fewer attributes with its inherited ones than of its own")
    }
    _ = ModelValidator().validate(model)
    _ = model.treeText()
    require(model.jsonText().first == UInt8(ascii: "{"), "the JSON form of a model is not an object")
}
