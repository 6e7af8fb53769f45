// The exit codes besides 0 and 1, here rather than in their commands' modules: `plant-store --help` names them
// without loading those.

/** Exit code of `copy-store` when the copy ran but the two sides differ: conflicts, or a target holding other plants. */
export const EXIT_DIFFERENT = 2;

/** Exit code of `inspect --id` when the store holds no plant with that id. */
export const EXIT_ABSENT = 2;
