#!/usr/bin/env node
// A committed entry point, so npm can link the `svcd` bin at install time, before `prepare` has built dist/.
import '../dist/main.js';
