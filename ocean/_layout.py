"""Layout of the game state: one flat int64 array, cheap to copy for search.

Global fields first, then one block of PLAYER_STRIDE fields per player starting at
``player_base(p)``. Bitboards are 4 int64 words (cell c is bit c & 63 of word c >> 6).
Plain constants, no Numba: ``ocean bot`` reads them before any kernel loads; ``ocean._state``
holds them with the kernels that read them.
"""
from ocean.constants import MAX_LINE_ACTIONS

# Global fields.
TURN = 0  # player-turns started so far (the referee's turn counter, 0..598)
ACTIVE = 1  # player whose turn it is
ACTIONS = 2  # actions executed so far, the fallback SURFACE included (frame cap: 999)
END = 3  # end reason (constants.END_*), 0 while running
WINNER = 4  # 0, 1 or -1 (draw), valid once END != 0
STALE_SCORE = 5  # 1 + the score the referee keeps for the opponent of a player disqualified
#                  in the same frame as its last action (the referee skips that frame's
#                  score update); 0 when scores are simply the lives
GLOBALS = 8

# Per-player fields (offsets inside a player block).
CELL = 0  # y*15 + x
LIFE = 1  # 0..6, -1 once disqualified
CHARGE = 2  # 4 fields: TORPEDO, SONAR, SILENCE, MINE charges
SONAR_RESULT = 6  # answer of this player's last SONAR (constants.SONAR_*), shown next turn
ERROR = 7  # disqualification code (constants.ERR_*), 0 if none
VISITED = 8  # bitboard: cells visited since the last surface
MINES_ACTIVE = 12  # bitboard: own unexploded mines laid before this turn (triggerable)
MINES_FRESH = 16  # bitboard: own mines laid during this turn
SUMMARY_COUNT = 20  # number of entries of this player's last-turn summary
SUMMARY = 21  # MAX_LINE_ACTIONS entries of (action kind, a, b)
STATS = SUMMARY + 3 * MAX_LINE_ACTIONS  # per-game statistics, below
PLAYER_STRIDE = STATS + 16

# Statistics (offsets inside the STATS block).
ST_SURFACES = 0
ST_TORPEDOES = 1  # torpedoes fired
ST_TORPEDO_HITS = 2  # torpedoes that cost the opponent a life
ST_MINES = 3  # mines laid
ST_TRIGGERS = 4
ST_SILENCES = 5
ST_SONARS = 6
ST_DAMAGE_DEALT = 7  # lives the opponent lost to our torpedoes and mines
ST_SELF_DAMAGE = 8  # lives we lost to our own torpedoes and mines
ST_MINE_DAMAGE_TAKEN = 9  # lives we lost to the opponent's mines
ST_TORPEDO_DAMAGE_TAKEN = 10
ST_MOVES = 11
ST_FIRST_DAMAGE = 12  # 1 if our torpedo or mine took the game's first life from the opponent
ST_DIRECT_HITS = 13  # torpedoes that exploded on the opponent's cell (2 damage) and cost it a life
ST_SURFACES_UNDER_FIRE = 14  # SURFACEs after the opponent took a life from us in one of its last two turns
STATS_COUNT = 15  # the statistics reported; the fields after them are the engine's own
ST_HIT_AT = 15  # TURN of the opponent's last turn that took a life from us, 0 if none yet
STAT_NAMES = ("surfaces", "torpedoes", "torpedo_hits", "mines", "triggers", "silences", "sonars",
              "damage_dealt", "self_damage", "mine_damage_taken", "torpedo_damage_taken", "moves",
              "first_damage", "direct_hits", "surfaces_under_fire")

STATE_SIZE = GLOBALS + 2 * PLAYER_STRIDE

