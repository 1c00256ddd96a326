import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cachePreparedStatements } from '../src/store/statement-cache.js';

describe('emulator statement cache', () => {
  it('compiles each SQL text once and keeps statements usable with new parameters', () => {
    const db = new Database(':memory:');
    cachePreparedStatements(db);
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    expect(db.prepare('INSERT INTO t (v) VALUES (?)')).toBe(insert);
    insert.run('a');
    db.prepare('INSERT INTO t (v) VALUES (?)').run('b');
    expect(db.prepare('SELECT v FROM t ORDER BY id').all()).toEqual([{ v: 'a' }, { v: 'b' }]);
    expect(db.prepare('SELECT v FROM t WHERE id = ?').get(2)).toEqual({ v: 'b' });
    expect(db.prepare('SELECT v FROM t WHERE id = ?').get(1)).toEqual({ v: 'a' });
    db.close();
  });
});
