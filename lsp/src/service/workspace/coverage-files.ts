import { coverageFileOf } from '@kairoku-playbook/machine';
import { readCoverageFile } from '../features/coverage-hints.js';
import type { CoverageBranches } from '../features/coverage-hints.js';
import type { PlaybookFileSystem } from './file-system.js';

/** A coverage file past this is not read (the samples' are a few kilobytes; 2,000 steps about 2 MB). */
const COVERAGE_LIMIT = 16 * 1024 * 1024;

/**
 * The coverage files beside the playbooks, read through the workspace's file system and kept until
 * their version token changes (a file that is gone, unreadable or not a coverage file: none).
 */
export class CoverageFiles {
  private readonly cache = new Map<
    string,
    { version: string | undefined; coverage: CoverageBranches | undefined }
  >();

  constructor(private readonly fs: PlaybookFileSystem) {}

  /** The coverage of the playbook at `path` (a path on the file system), if `test --coverage` wrote one. */
  of(path: string): CoverageBranches | undefined {
    const file = coverageFileOf(path);
    const version = this.fs.version?.(file);
    const cached = this.cache.get(file);
    if (cached && this.fs.version && cached.version === version) return cached.coverage;
    // (a file system with version tokens says there is no file: nothing to read)
    const read = version === undefined && this.fs.version ? undefined : this.read(file);
    this.cache.set(file, { version, coverage: read });
    return read;
  }

  /** Forgets what was read of a coverage file (a watched file changed). */
  forget(path: string): void {
    this.cache.delete(path);
  }

  private read(file: string): CoverageBranches | undefined {
    const read = this.fs.readFile(file, COVERAGE_LIMIT, 'a coverage file');
    if (!read.bytes) return undefined;
    return readCoverageFile(new TextDecoder().decode(read.bytes));
  }
}
