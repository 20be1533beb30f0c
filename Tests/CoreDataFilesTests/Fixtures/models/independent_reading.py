"""An independent reading of a Core Data model, for CoreDataFilesTests: Python's xml.etree for an .xcdatamodel's
contents, plistlib for a compiled .mom's $objects and a .momd's VersionInfo.plist. Prints one JSON document:

{"entities": [{"name", "superentity", "abstract", "attributes": [{"name", "typeCode", "optional", "transient",
  "default", "transformer", "external"}], "relationships": [{"name", "destination", "inverse", "toMany", "ordered",
  "optional", "minCount", "maxCount", "deleteRule"}]}], "configurations": {...}, "hashes": {entity: hex}}

usage: independent_reading.py xml CONTENTS | mom FILE.mom | elements ELEMENTS | hashes VersionInfo.plist VERSION

An Xcode 3 model's `elements` (a keyed archive of Xcode's XDPMModel) is read with plistlib: entities from the root
package's XDBucketForClassesstorage, properties from each one's XDBucketForOwnedAttributesstorage, and what Core
Data knows of each from the `_default` of the properties its stereotypes own (XD_PAttK_attributeType, XD_PRK_...).
"""
import json
import plistlib
import sys
import xml.etree.ElementTree as ET
from decimal import Decimal

# NSAttributeType, as Apple's NSAttributeDescription.h declares it, by the names Xcode writes.
TYPE_CODES = {"Undefined": 0, "Integer 16": 100, "Integer 32": 200, "Integer 64": 300, "Decimal": 400, "Double": 500,
              "Float": 600, "String": 700, "Boolean": 800, "Date": 900, "Binary": 1000, "UUID": 1100, "URI": 1200,
              "Transformable": 1800, "ObjectID": 2000, "Composite": 2100}
# NSDeleteRule: NSNoActionDeleteRule = 0, NSNullifyDeleteRule, NSCascadeDeleteRule, NSDenyDeleteRule.
RULES = ["No Action", "Nullify", "Cascade", "Deny"]


def read_xml(path):
    root = ET.parse(path).getroot()
    yes = lambda element, name: element.get(name) == "YES"
    entities = []
    for entity in root.findall("entity"):
        attributes = [{
            "name": a.get("name"), "typeCode": TYPE_CODES[a.get("attributeType", "Undefined")],
            "optional": yes(a, "optional"), "transient": yes(a, "transient"),
            "default": a.get("defaultValueString", a.get("defaultDateTimeInterval")),
            "transformer": a.get("valueTransformerName"), "external": yes(a, "allowsExternalBinaryDataStorage"),
        } for a in entity.findall("attribute")]
        relationships = []
        for r in entity.findall("relationship"):
            to_many = yes(r, "toMany")
            relationships.append({
                "name": r.get("name"), "destination": r.get("destinationEntity"), "inverse": r.get("inverseName"),
                "toMany": to_many, "ordered": yes(r, "ordered"), "optional": yes(r, "optional"),
                "minCount": int(r.get("minCount", "0")), "maxCount": int(r.get("maxCount", "0" if to_many else "1")),
                "deleteRule": r.get("deletionRule", "Nullify"),
            })
        entities.append({"name": entity.get("name"), "superentity": entity.get("parentEntity"),
                         "abstract": yes(entity, "isAbstract"), "attributes": attributes, "relationships": relationships})
    configurations = {c.get("name"): [m.get("name") for m in c.findall("memberEntity")] for c in root.findall("configuration")}
    return {"entities": entities, "configurations": configurations}


def read_mom(path):
    archive = plistlib.load(open(path, "rb"))
    objects = archive["$objects"]
    deref = lambda value: objects[value.data] if isinstance(value, plistlib.UID) else value
    class_name = lambda obj: objects[obj["$class"].data]["$classname"]

    def string(obj, key):
        value = deref(obj.get(key))
        return None if value == "$null" else value

    def dictionary(obj):
        return [(deref(k), deref(v)) for k, v in zip(obj["NS.keys"], obj["NS.objects"])]

    def default(obj):
        value = deref(obj.get("NSDefaultValue"))
        if value == "$null" or value is None:
            return None
        if isinstance(value, bool):
            return "YES" if value else "NO"
        if isinstance(value, (int, str)):
            return str(value)
        if isinstance(value, dict) and class_name(value) == "NSDecimalNumberPlaceholder":
            mantissa = int.from_bytes(value["NS.mantissa"], "little")
            number = Decimal(mantissa).scaleb(value["NS.exponent"])
            return str(-number if value["NS.negative"] else number)
        return repr(value)

    model = deref(archive["$top"]["root"])
    entities = []
    for name, entity in sorted(dictionary(deref(model["NSEntities"])), key=lambda pair: pair[0]):
        attributes, relationships = [], []
        for property_name, prop in sorted(dictionary(deref(entity["NSProperties"])), key=lambda pair: pair[0]):
            if class_name(prop) == "NSAttributeDescription":
                attributes.append({
                    "name": property_name, "typeCode": prop["NSAttributeType"], "optional": prop.get("NSIsOptional", False),
                    "transient": prop.get("NSIsTransient", False), "default": default(prop), "transformer": string(prop, "NSValueTransformerName"),
                    "external": bool(prop.get("NSFlagsKey", 0) & 4),
                })
            elif class_name(prop) == "NSRelationshipDescription":
                max_count = prop.get("NSMaxCount", 1)
                relationships.append({
                    "name": property_name, "destination": string(prop, "_NSDestinationEntityName"),
                    "inverse": string(prop, "_NSInverseRelationshipName"), "toMany": max_count != 1, "ordered": False,
                    "optional": prop.get("NSIsOptional", False), "minCount": prop.get("NSMinCount", 0), "maxCount": max_count,
                    "deleteRule": RULES[prop.get("NSDeleteRule", 1)],
                })
        superentity = deref(entity.get("NSSuperentity"))
        entities.append({"name": name, "superentity": None if superentity == "$null" else string(superentity, "NSEntityName"),
                         "abstract": False, "attributes": attributes, "relationships": relationships})
    return {"entities": entities, "configurations": {}}


def read_elements(path):
    archive = plistlib.load(open(path, "rb"))
    objects = archive["$objects"]
    deref = lambda value: objects[value.data] if isinstance(value, plistlib.UID) else value
    class_name = lambda obj: objects[obj["$class"].data]["$classname"]
    dictionary = lambda obj: {deref(k): deref(v) for k, v in zip(obj["NS.keys"], obj["NS.objects"])}

    def tags(element):
        values = {}
        for stereotype in dictionary(deref(element["XDBucketForStereotypesstorage"])).values():
            for key, prop in dictionary(deref(stereotype["XDBucketForOwnedAttributesstorage"])).items():
                value = deref(prop["_default"])
                if value != "$null":
                    values[key] = value
        return values

    model = deref(archive["$top"]["root"])
    package = deref(model["_xd_rootPackage"])
    entities = []
    for name, entity in sorted(dictionary(deref(package["XDBucketForClassesstorage"])).items()):
        entity_tags = tags(entity)
        attributes, relationships = [], []
        for property_name, prop in sorted(dictionary(deref(entity["XDBucketForOwnedAttributesstorage"])).items()):
            t = tags(prop)
            if class_name(prop) == "XDPMAttribute":
                attributes.append({
                    "name": property_name, "typeCode": t.get("XD_PAttK_attributeType", 0), "optional": t.get("XD_PPSK_isOptional", False),
                    "transient": t.get("XD_PPSK_isTransient", False), "default": t.get("XD_PAttK_defaultValueAsString"),
                    "transformer": t.get("XD_PAttK_valueTransformerName"), "external": False,
                })
            elif class_name(prop) == "XDPMRelationship":
                to_many = t.get("XD_PRK_isToMany", False)
                inverse = t.get("XD_PRK_inverseRelationship")
                relationships.append({
                    "name": property_name, "destination": deref(t["XD_PRK_destination"]["_name"]),
                    "inverse": None if inverse is None else deref(inverse["_name"]), "toMany": to_many, "ordered": False,
                    "optional": t.get("XD_PPSK_isOptional", False), "minCount": t.get("XD_PRK_minCount", 0),
                    "maxCount": t.get("XD_PRK_maxCount", 0 if to_many else 1), "deleteRule": RULES[t.get("XD_PRK_deleteRule", 1)],
                })
        entities.append({"name": name, "superentity": None, "abstract": entity_tags.get("XD_PSK_isAbstract", False),
                         "attributes": attributes, "relationships": relationships})
    return {"entities": entities, "configurations": {}}


def read_hashes(path, version):
    info = plistlib.load(open(path, "rb"))
    return {"hashes": {name: data.hex() for name, data in info["NSManagedObjectModel_VersionHashes"][version].items()}}


if __name__ == "__main__":
    kind = sys.argv[1]
    result = {"xml": lambda: read_xml(sys.argv[2]), "mom": lambda: read_mom(sys.argv[2]),
              "elements": lambda: read_elements(sys.argv[2]),
              "hashes": lambda: read_hashes(sys.argv[2], sys.argv[3])}[kind]()
    json.dump(result, sys.stdout, sort_keys=True)
