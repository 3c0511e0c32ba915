"""The tracker update: every candidate state of the tracked submarine is carried through
what the observer learns between two of its turns, and dropped as soon as it contradicts
any of it.

One update takes the observer's own last line (its explosions hurt the tracked submarine
where it stood; its SONAR answer), the tracked submarine's summary line, its life now,
and the observer's mines. The safe tracker uses only facts, so the truth is never dropped;
the assumption tracker also drops states a sensible opponent would not be in, and falls
back to the safe set when that leaves nothing.
"""
import numpy as np

from ocean._jit import copy_into, inline_kernel, kernel

from ocean.board import REACH, SECTOR, STEP, WATER
from ocean.constants import (
    ACT_MINE, ACT_MOVE, ACT_SILENCE, ACT_SONAR, ACT_SURFACE, ACT_TORPEDO, ACT_TRIGGER, CELLS,
    SONAR_NA, SONAR_YES, START_LIFE, WIDTH,
)
from ocean.tracking._layout import (
    F_CELL, F_MULTI, F_ORIGINS, F_PENDING, F_VISITED, H_ASSUME, H_CAP, H_COLLAPSES, H_COUNT,
    H_FALLBACKS, H_GEN, H_LIFE, H_RESETS, H_TABLE_BITS, H_UPDATES, HEADER, STATE_WORDS,
    spare_view, states_view, table_view,
)

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xC2B2AE3D27D4EB4F)
_INDEX_BITS = 24  # hash entries: generation << 24 | (state index + 1)
_INDEX_MASK = (1 << _INDEX_BITS) - 1


@kernel
def _has(words, offset, cell):
    return (words[offset + (cell >> 6)] >> (cell & 63)) & 1


@kernel
def _add(words, offset, cell):
    words[offset + (cell >> 6)] |= np.int64(1) << (cell & 63)


@kernel
def blast_damage(cell, x, y):
    """Lives a submarine on ``cell`` loses to a blast at (x, y): 2 on it, 1 next to it."""
    dx = abs(cell % WIDTH - x)
    dy = abs(cell // WIDTH - y)
    if dx == 0 and dy == 0:
        return 2
    if dx <= 1 and dy <= 1:
        return 1
    return 0


@kernel
def _shifted(mask, damage):
    """Pending damage is a set of possible totals (bit k: k lives); add ``damage`` to each.
    Bit 7 stands for 7 lives or more, more than any life."""
    m = mask << damage
    if m >= 256:
        m = (m & 255) | 128
    return m


@kernel
def reset_tracker(trk, board):
    """Start of a game: the tracked submarine may be on any water cell, nothing visited but
    that cell, no mines, full life."""
    states = states_view(trk)
    n = 0
    for c in range(CELLS):
        if board[WATER + c]:
            row = states[n]
            row[:] = 0
            row[F_CELL] = c
            row[F_PENDING] = 1
            _add(row, F_VISITED, c)
            n += 1
    trk[H_COUNT] = n
    trk[H_LIFE] = START_LIFE
    trk[H_COLLAPSES] = 0
    trk[H_FALLBACKS] = 0
    trk[H_RESETS] = 0
    trk[H_UPDATES] = 0


@kernel
def copy_states(src, dst):
    """Make tracker ``dst`` hold the same candidate states as ``src`` (same cap)."""
    n = src[H_COUNT]
    copy_into(dst[HEADER:HEADER + n * STATE_WORDS], src[HEADER:HEADER + n * STATE_WORDS])
    dst[H_COUNT] = n
    dst[H_LIFE] = src[H_LIFE]


@kernel
def _hash(row):
    h = np.uint64(row[F_CELL]) * _M2
    for w in range(4):
        h = (h ^ np.uint64(row[F_VISITED + w])) * _M1
        h ^= h >> np.uint64(29)
    return h


@kernel
def _same_key(a, b):
    if a[F_CELL] != b[F_CELL]:
        return False
    for w in range(4):
        if a[F_VISITED + w] != b[F_VISITED + w]:
            return False
    return True


@kernel
def _merge_into(dst, src):
    """dst and src share their cell: one state stands for both (visited is the caller's)."""
    dst[F_PENDING] |= src[F_PENDING]
    for w in range(4):
        both = dst[F_ORIGINS + w] & src[F_ORIGINS + w]
        dst[F_MULTI + w] |= src[F_MULTI + w] | both
        dst[F_ORIGINS + w] |= src[F_ORIGINS + w]


@kernel
def _dedup(trk, src, n, dst, in_place):
    """Copy rows src[:n] into dst, merging rows with the same (cell, visited); src is dst
    when ``in_place``. Returns the new count."""
    table = table_view(trk)
    bits = trk[H_TABLE_BITS]
    trk[H_GEN] += 1
    gen = trk[H_GEN]
    mask = (1 << bits) - 1
    shift = np.uint64(64 - bits)
    k = 0
    for i in range(n):
        row = src[i]
        slot = np.int64(_hash(row) >> shift)
        while True:
            entry = table[slot]
            if (entry >> _INDEX_BITS) != gen:
                if k != i or not in_place:
                    copy_into(dst[k], row)
                table[slot] = (gen << _INDEX_BITS) | (k + 1)
                k += 1
                break
            j = (entry & _INDEX_MASK) - 1
            if _same_key(dst[j], row):
                _merge_into(dst[j], row)
                break
            slot = (slot + 1) & mask
    return k


@kernel
def _collapse(trk, states, n):
    """Sound fallback at the cap: one state per cell, visited cells reduced to those every
    merged state has, origins and pending damage to those any has. Returns the count."""
    first = np.full(CELLS, -1, dtype=np.int64)
    k = 0
    for i in range(n):
        row = states[i]
        key = row[F_CELL]
        j = first[key]
        if j < 0:
            if k != i:
                copy_into(states[k], row)
            first[key] = k
            k += 1
        else:
            dst = states[j]
            for w in range(4):
                dst[F_VISITED + w] &= row[F_VISITED + w]
            _merge_into(dst, row)
    trk[H_COLLAPSES] += 1
    return k


@kernel
def _silence(trk, board, n):
    """Branch every state into each SILENCE it could have played (0..4 steps, one
    direction, over water never visited), then merge duplicates."""
    states = states_view(trk)
    spare = spare_view(trk)
    m = 0
    for i in range(n):
        row = states[i]
        copy_into(spare[m], row)
        m += 1
        for d in range(4):
            prev = row
            cell = row[F_CELL]
            for _ in range(4):
                cell = board[STEP + cell * 4 + d]
                if cell < 0 or _has(row, F_VISITED, cell):
                    break
                child = spare[m]
                copy_into(child, prev)
                child[F_CELL] = cell
                _add(child, F_VISITED, cell)
                prev = child
                m += 1
    return _dedup(trk, spare, m, states, False)


@kernel
def _surface(trk, board, n, sector):
    states = states_view(trk)
    k = 0
    for i in range(n):
        row = states[i]
        cell = row[F_CELL]
        if board[SECTOR + cell] != sector:
            continue
        if k != i:
            copy_into(states[k], row)
        dst = states[k]
        for w in range(4):
            dst[F_VISITED + w] = 0
        _add(dst, F_VISITED, cell)
        dst[F_PENDING] = _shifted(dst[F_PENDING], 1)
        k += 1
    return _dedup(trk, states, k, states, True)


@kernel
def _move(states, board, n, d):
    k = 0
    for i in range(n):
        row = states[i]
        target = board[STEP + row[F_CELL] * 4 + d]
        if target < 0 or _has(row, F_VISITED, target):
            continue
        if k != i:
            copy_into(states[k], row)
        states[k, F_CELL] = target
        _add(states[k], F_VISITED, target)
        k += 1
    return k


@kernel
def _own_blast(states, n, x, y):
    """The observer's TORPEDO or TRIGGER at (x, y) while the tracked submarine sat still."""
    for i in range(n):
        states[i, F_PENDING] = _shifted(states[i, F_PENDING], blast_damage(states[i, F_CELL], x, y))


@kernel
def _own_sonar(states, board, n, sector, answer):
    k = 0
    for i in range(n):
        inside = board[SECTOR + states[i, F_CELL]] == sector
        if inside == (answer == SONAR_YES):
            if k != i:
                copy_into(states[k], states[i])
            k += 1
    return k


@kernel
def _torpedo(states, board, n, x, y, assume):
    """The tracked submarine fired at (x, y): the target was within its torpedo range."""
    target = y * WIDTH + x
    k = 0
    for i in range(n):
        cell = states[i, F_CELL]
        if not _has(board, REACH + cell * 4, target):
            continue
        damage = blast_damage(cell, x, y)
        if assume and damage > 0:
            continue  # it would not hurt itself
        if k != i:
            copy_into(states[k], states[i])
        states[k, F_PENDING] = _shifted(states[k, F_PENDING], damage)
        k += 1
    return k


@kernel
def _trigger(states, board, n, x, y, assume):
    """The tracked submarine blew one of its mines at (x, y): it was laid from a
    neighbour of (x, y). That origin is forgotten when it is the only one possible and
    surely laid a single mine."""
    target = y * WIDTH + x
    k = 0
    for i in range(n):
        row = states[i]
        found = 0
        origin = -1
        for d in range(4):
            o = board[STEP + target * 4 + d]
            if o >= 0 and _has(row, F_ORIGINS, o):
                found += 1
                origin = o
        if found == 0:
            continue
        damage = blast_damage(row[F_CELL], x, y)
        if assume and damage > 0:
            continue
        if k != i:
            copy_into(states[k], row)
        dst = states[k]
        if found == 1 and not _has(dst, F_MULTI, origin):
            dst[F_ORIGINS + (origin >> 6)] &= ~(np.int64(1) << (origin & 63))
        dst[F_PENDING] = _shifted(dst[F_PENDING], damage)
        k += 1
    return k


@kernel
def _mine(states, n):
    for i in range(n):
        row = states[i]
        cell = row[F_CELL]
        if _has(row, F_ORIGINS, cell):
            _add(row, F_MULTI, cell)
        _add(row, F_ORIGINS, cell)


@kernel
def _life(states, n, before, now):
    """Keep the states whose damage since the last reading explains the life change."""
    if now > 0:
        wanted = np.int64(1) << min(max(before - now, 0), 7)
    else:
        wanted = np.int64(255) ^ ((np.int64(1) << min(before, 7)) - 1)  # before lives or more
    k = 0
    for i in range(n):
        if states[i, F_PENDING] & wanted:
            if k != i:
                copy_into(states[k], states[i])
            states[k, F_PENDING] = 1
            k += 1
    return k


@kernel
def _off_mines(states, n, mines):
    """Assumption: the tracked submarine does not end its turn on one of our mines."""
    k = 0
    for i in range(n):
        if _has(mines, 0, states[i, F_CELL]):
            continue
        if k != i:
            copy_into(states[k], states[i])
        k += 1
    return k


@kernel
def observe(trk, board, own, n_own, sonar_answer, opp, n_opp, opp_life, own_mines):
    """Update one tracker. ``own``: the observer's last line as (kind, a, b) triples with
    coordinates and sectors (its summary), ``n_own`` of them; ``sonar_answer``: the
    answer to its SONAR (SONAR_NA if none); ``opp``: the tracked submarine's summary
    triples (``n_opp``); ``opp_life``: its life now; ``own_mines``: bitboard (4 words) of
    the observer's mines, for the assumption tracker. Returns the number of states."""
    states = states_view(trk)
    n = trk[H_COUNT]
    assume = trk[H_ASSUME] != 0
    for i in range(n_own):
        kind = own[3 * i]
        a = own[3 * i + 1]
        b = own[3 * i + 2]
        if kind == ACT_TORPEDO or kind == ACT_TRIGGER:
            _own_blast(states, n, a, b)
        elif kind == ACT_SONAR and sonar_answer != SONAR_NA:
            n = _own_sonar(states, board, n, a, sonar_answer)
    for i in range(n_opp):
        kind = opp[3 * i]
        a = opp[3 * i + 1]
        b = opp[3 * i + 2]
        if kind == ACT_MOVE:
            n = _move(states, board, n, a)
        elif kind == ACT_SILENCE:
            n = _silence(trk, board, n)
            if n > trk[H_CAP]:
                n = _collapse(trk, states, n)
        elif kind == ACT_SURFACE:
            n = _surface(trk, board, n, a)
        elif kind == ACT_TORPEDO:
            n = _torpedo(states, board, n, a, b, assume)
        elif kind == ACT_TRIGGER:
            n = _trigger(states, board, n, a, b, assume)
        elif kind == ACT_MINE:
            _mine(states, n)
    n = _life(states, n, trk[H_LIFE], opp_life)
    if assume:
        n = _off_mines(states, n, own_mines)
    trk[H_LIFE] = opp_life
    trk[H_COUNT] = n
    trk[H_UPDATES] += 1
    return n


@inline_kernel  # its one caller (observe_from_state) is compiled anyway: no library of its own
def observe_pair(safe, assume, board, own, n_own, sonar_answer, opp, n_opp, opp_life, own_mines):
    """Update the safe and the assumption tracker with the same news; the assumption
    tracker takes the safe set whenever its own would be empty. An empty safe set can only
    come from wrong input: it restarts from every water cell rather than track nothing."""
    if observe(safe, board, own, n_own, sonar_answer, opp, n_opp, opp_life, own_mines) == 0:
        life = safe[H_LIFE]
        resets = safe[H_RESETS] + 1
        reset_tracker(safe, board)
        safe[H_LIFE] = life
        safe[H_RESETS] = resets
    if observe(assume, board, own, n_own, sonar_answer, opp, n_opp, opp_life, own_mines) == 0:
        copy_states(safe, assume)
        assume[H_FALLBACKS] += 1
