/**
 * DynamoDB Local's class-data sharing archive (AppCDS): the classes a DynamoDB Local loads at its
 * start and first requests, parsed and verified once and mapped by every later JVM, which then
 * starts with a third less CPU (measured here: 1.6-2.0 against 2.6-3.3 s of CPU to its first
 * answered requests, 0.7-1.5 against 1.4-2.5 s to its listening line; the e2e tier starts some 25).
 *
 * The JVM archives classes from jars only, and the manifest of DynamoDBLocal.jar puts its own
 * directory (`.`, which holds the jar) on the class path, which makes it refuse ("Cannot have
 * non-empty directory in paths"). So the archived JVMs run from a copy of the jar whose manifest
 * entry is renamed (no Class-Path is read from it) with the manifest's jars listed on `-cp`, in
 * its order. The copy and the archive live in node_modules/.cache/dynamodb-local/<key>/, the key
 * naming the Java binary and the jar (a new Java or jar: a new archive); the JVM checks the
 * archive itself too and runs without it when it does not match.
 */
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { inflateRawSync } from 'node:zlib';

const ROOT = resolve(__dirname, '..', '..');
export const JAR_DIR = join(ROOT, '.dynamodb-local');
const JAR = join(JAR_DIR, 'DynamoDBLocal.jar');
const CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'dynamodb-local');

const MANIFEST = 'META-INF/MANIFEST.MF';
/** The manifest's name in the copy: as long as MANIFEST, so that only the name's bytes change. */
const RENAMED_MANIFEST = 'META-INF/MANIFEST.NO';

/** `java` as the shell that starts DynamoDB Local finds it on the PATH (its real file), if any. */
function javaBinary(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir || '.', 'java');
    try {
      accessSync(candidate, constants.X_OK);
      return realpathSync(candidate);
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

interface ArchiveFiles {
  /** The copy of DynamoDBLocal.jar without its manifest. */
  jar: string;
  /** The class-data sharing archive. */
  archive: string;
  dir: string;
}

/** Where this Java's and this jar's archive is (whether or not it exists yet); undefined without Java. */
export function archiveFiles(): ArchiveFiles | undefined {
  const java = javaBinary();
  if (java === undefined || !existsSync(JAR)) return undefined;
  const stamp = [java, statSync(java).mtimeMs, statSync(JAR).size, statSync(JAR).mtimeMs].join(' ');
  const dir = join(CACHE_DIR, createHash('sha256').update(stamp).digest('hex').slice(0, 16));
  return { jar: join(dir, 'DynamoDBLocal.jar'), archive: join(dir, 'classes.jsa'), dir };
}

/**
 * The central directory's entries of a zip file (the jar): name, where the name sits in the
 * central and the local header, and the data's compression, sizes and offset.
 */
function zipEntries(zip: Buffer) {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('DynamoDBLocal.jar: no end of central directory');
  const entries = [];
  let at = zip.readUInt32LE(end + 16);
  for (let i = zip.readUInt16LE(end + 10); i > 0; i--) {
    const nameLength = zip.readUInt16LE(at + 28);
    const local = zip.readUInt32LE(at + 42);
    entries.push({
      name: zip.toString('latin1', at + 46, at + 46 + nameLength),
      centralName: at + 46,
      localName: local + 30,
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      data: local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28),
    });
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return entries;
}

/**
 * The copy of the jar without its manifest (renamed in both headers), and the manifest's
 * Class-Path jars, relative to JAR_DIR, in its order (the directory and the absent log4j2.xml
 * left out).
 */
export function jarWithoutManifest(): { jar: Buffer; classPath: string[] } {
  const jar = readFileSync(JAR);
  const manifest = zipEntries(jar).find((e) => e.name === MANIFEST);
  if (!manifest) throw new Error(`DynamoDBLocal.jar: no ${MANIFEST}`);
  const stored = jar.subarray(manifest.data, manifest.data + manifest.compressedSize);
  const text = (manifest.method === 8 ? inflateRawSync(stored) : stored).toString('utf8');
  // Manifest lines are folded at 72 bytes: a line starting with a space continues the last one.
  const classPath = /^Class-Path: (.*)$/m.exec(text.replace(/\r?\n /g, ''))?.[1] ?? '';
  jar.write(RENAMED_MANIFEST, manifest.centralName, 'latin1');
  jar.write(RENAMED_MANIFEST, manifest.localName, 'latin1');
  return { jar, classPath: classPath.split(/\s+/).filter((entry) => entry.endsWith('.jar')) };
}

/** The class path file beside the archive: the copy, then the manifest's jars (JAR_DIR relative). */
export const classPathFile = (files: ArchiveFiles) => join(files.dir, 'class-path');

/**
 * The JVM's class path arguments and, when this Java's archive exists, the arguments that map it
 * (with the JVM's notes about it off: a mismatched archive is simply not used).
 */
export function classPathArgs(): string[] {
  const files = archiveFiles();
  if (files === undefined || !existsSync(files.archive) || !existsSync(classPathFile(files))) {
    // The jar's manifest puts DynamoDBLocal_lib/ (Jetty's XmlConfiguration among it) on the path.
    return ['-cp', 'DynamoDBLocal.jar'];
  }
  return [
    `-XX:SharedArchiveFile=${files.archive}`,
    '-Xlog:cds=off',
    '-Xlog:cds+dynamic=off',
    '-cp',
    readFileSync(classPathFile(files), 'utf8'),
  ];
}
