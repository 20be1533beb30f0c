import Foundation

/// Keys a newer app might add to the root object of a keyed-archive entry
/// (`.ict`, `.ptk`), written and read back by Python's `plistlib`, not by
/// ICTKit: for tests that an edit keeps every key it does not know.
///
/// `add(toEntryAt:topKey:)` adds to the object under `$top.topKey`:
/// `NOTE` a string, `COUNT` an integer, `RATIO` a real, `BLOB` data,
/// `NOTHING` `$null`, `FLAGS` an integer stored in the object itself (not
/// an object of its own), `TAGS` an `NSMutableArray` holding a string, an
/// `NSArray` and `$null`, `INFO` an `NSDictionary` whose second value is
/// that same `NSArray` (shared), `FRIEND` an object of a class no one knows
/// (`CTFriend`) with a field referring to itself and one to the root object,
/// `SHARED` the same `CTFriend` object, and `OWNER` the root object itself.
public enum UnknownArchiveKeys {
    /// The keys `add(toEntryAt:topKey:)` adds.
    public static let keys = ["NOTE", "COUNT", "RATIO", "BLOB", "NOTHING", "FLAGS", "TAGS", "INFO", "FRIEND", "SHARED", "OWNER"]

    /// Adds `keys` to the root object of the keyed archive at `path`
    /// (rewritten as a binary property list by `plistlib`).
    ///
    /// - Throws: when `python3` fails, with what it wrote to standard error.
    public static func add(toEntryAt path: String, topKey: String) throws {
        let script = #"""
            import plistlib, sys
            path, top_key = sys.argv[1], sys.argv[2]
            archive = plistlib.load(open(path, 'rb'))
            objects = archive['$objects']
            root_index = archive['$top'][top_key].data
            def add(value):
                objects.append(value)
                return plistlib.UID(len(objects) - 1)
            def cls(*chain):
                return add({'$classname': chain[0], '$classes': list(chain)})
            root = objects[root_index]
            root['NOTE'] = add("a newer app's note")
            root['COUNT'] = add(42)
            root['RATIO'] = add(0.25)
            root['BLOB'] = add(b'\x00\x01\xfe\xff')
            root['NOTHING'] = plistlib.UID(0)
            root['FLAGS'] = 5
            inner = add({'NS.objects': [add('x'), add(7)], '$class': cls('NSArray', 'NSObject')})
            root['TAGS'] = add({'NS.objects': [add('first'), inner, plistlib.UID(0)], '$class': cls('NSMutableArray', 'NSArray', 'NSObject')})
            root['INFO'] = add({'NS.keys': [add('size'), add('nested')], 'NS.objects': [add(3.5), inner], '$class': cls('NSDictionary', 'NSObject')})
            friend_index = len(objects)
            objects.append({})
            objects[friend_index] = {'name': add('Grace'), 'score': 3, 'back': plistlib.UID(friend_index), 'owner': plistlib.UID(root_index), '$class': cls('CTFriend', 'NSObject')}
            root['FRIEND'] = plistlib.UID(friend_index)
            root['SHARED'] = plistlib.UID(friend_index)
            root['OWNER'] = plistlib.UID(root_index)
            plistlib.dump(archive, open(path, 'wb'), fmt=plistlib.FMT_BINARY)
            """#
        _ = try PythonScript.run(script, arguments: [path, topKey])
    }

    /// The root object's fields `keys` of the keyed archive at `path`, each
    /// with the objects it reaches resolved, as `plistlib` reads them: one
    /// line of JSON, `"absent"` for a key the object lacks, a reference to
    /// the root `"$root"`, one to an object being resolved `{"cycle to":
    /// its classes}`, and under `"$same object"` the groups of keys that
    /// refer to one same object. Equal for two archives that hold the same
    /// values under `keys`, however their objects are numbered.
    ///
    /// - Throws: when `python3` fails, with what it wrote to standard error.
    public static func resolved(inEntryAt path: String, topKey: String, keys: [String] = keys) throws -> String {
        let script = #"""
            import base64, datetime, json, plistlib, sys
            path, top_key, keys = sys.argv[1], sys.argv[2], sys.argv[3:]
            archive = plistlib.load(open(path, 'rb'))
            objects = archive['$objects']
            root_index = archive['$top'][top_key].data
            def plain(value):
                if isinstance(value, bytes): return {'data': base64.b64encode(value).decode()}
                if isinstance(value, bool): return {'bool': value}
                if isinstance(value, int): return {'integer': value}
                if isinstance(value, float): return {'real': repr(value)}
                if isinstance(value, datetime.datetime): return {'date': value.isoformat()}
                return {'string': value}
            def resolve(value, path):
                if isinstance(value, plistlib.UID):
                    index = value.data
                    if index == 0: return '$null'
                    if index == root_index: return '$root'
                    target = objects[index]
                    if not isinstance(target, dict): return plain(target)
                    if index in path: return {'cycle to': objects[target['$class'].data]['$classes']}
                    return {key: objects[member.data] if key == '$class' else resolve(member, path | {index}) for key, member in target.items()}
                if isinstance(value, list): return [resolve(element, path) for element in value]
                return plain(value)
            root = objects[root_index]
            result = {key: resolve(root[key], frozenset()) if key in root else 'absent' for key in keys}
            # Keys whose references are to one same object (not only equal ones), by object.
            by_object = {}
            for key in keys:
                if isinstance(root.get(key), plistlib.UID) and root[key].data != 0:
                    by_object.setdefault(root[key].data, []).append(key)
            result['$same object'] = sorted(group for group in by_object.values() if len(group) > 1)
            print(json.dumps(result, sort_keys=True))
            """#
        return String(decoding: try PythonScript.run(script, arguments: [path, topKey] + keys), as: UTF8.self)
    }
}
