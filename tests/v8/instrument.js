'use strict';
// Strips TypeScript with `ts.transpileModule` and, in the same pass, adds the
// probes that keep every context a call creates alive until the heap
// snapshot, and builds the scope model the probes refer to.
//
// A probe is `__boxcheck_keep(SCOPE, () => 0)` at the start of a scope (a
// function body, a block, a loop body), `__boxcheck_keep(SCOPE, C)` after a
// class, and `(__boxcheck_keep(SCOPE, () => 0), test)` in the test of a
// `for (let ...)` loop.  A closure's context is the innermost context where it
// is created, so each probe holds the chain of contexts of its scope.  The
// probe arrow refers to no variable, so it changes no scope's layout: V8
// allocates a context slot only for variables that inner functions refer to.
//
// The scope model follows V8's scopes, not boxcheck's: a function whose
// parameters are not simple has a second scope for its body (ES2022
// FunctionDeclarationInstantiation step 28), a `for (let ...)` head and a
// catch parameter are scopes of their own, the bindings of a destructured
// catch parameter live in the catch block, a named function expression's name
// lives in its own function scope, a class is a scope (its name as seen from
// inside, private names), static blocks run inside the class's static
// initializer and field initializers inside its instance initializer.

const ts = require('typescript');

const KEEP = '__boxcheck_keep';
const ARGS_COMMENT = /^\/\/\s*v8-args:\s*(.*)$/;

class Unsupported extends Error {}

function isFunctionLike(node) {
  return (ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node)
    || ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessorDeclaration(node)
    || ts.isSetAccessorDeclaration(node)) && node.body !== undefined;
}

function isLexical(list) {
  return (list.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const)) !== 0;
}

function realParameters(fn) {
  return fn.parameters.filter((p) => !(ts.isIdentifier(p.name) && p.name.text === 'this'));
}

function hasSimpleParameters(fn) {
  return realParameters(fn).every((p) => ts.isIdentifier(p.name) && !p.initializer && !p.dotDotDotToken);
}

function boundNames(name, out = []) {
  if (ts.isIdentifier(name)) out.push(name);
  else for (const element of name.elements) if (!ts.isOmittedExpression(element)) boundNames(element.name, out);
  return out;
}

/** The scope model of one source file, built by walking its TypeScript AST. */
class ScopeModel {
  constructor(sourceFile) {
    this.sourceFile = sourceFile;
    this.scopes = [];
    this.declarations = [];
    this.factories = [];
    /** original node -> the probe to add there: {probe: 'entry'|'wrap-body'|'wrap-statement'|'test'|'class', scope} */
    this.probes = new Map();
    const module = this.addScope('module', null, sourceFile, { name: '<module>' });
    for (const statement of sourceFile.statements) {
      this.collectFactory(statement);
      this.walk(statement, module);
    }
  }

  position(node) {
    const { line, character } = this.sourceFile.getLineAndCharacterOfPosition(node.getStart(this.sourceFile));
    return { line: line + 1, column: character + 1 };
  }

  addScope(kind, parent, node, extra = {}) {
    const scope = {
      id: this.scopes.length, kind, parent: parent === null ? null : parent.id, ...this.position(node),
      name: null, arrow: false, enteredWith: null, alsoEntered: [], hasTest: false, varScope: false, ...extra,
    };
    scope.function = kind === 'function' || kind === 'module' ? scope.id : parent.function;
    this.scopes.push(scope);
    return scope;
  }

  declare(identifier, scope, inner = false) {
    this.declarations.push({ name: identifier.text, ...this.position(identifier), inner, scope: scope.id });
  }

  varScopeOf(scope) {
    let current = scope;
    while (!current.varScope && current.kind !== 'function' && current.kind !== 'module') {
      current = this.scopes[current.parent];
    }
    return current;
  }

  collectFactory(statement) {
    if (!ts.isFunctionDeclaration(statement) || !statement.name || !statement.body) return;
    if (!(ts.getCombinedModifierFlags(statement) & ts.ModifierFlags.Export)) return;
    const text = this.sourceFile.text;
    let args = null;
    for (const range of ts.getLeadingCommentRanges(text, statement.pos) || []) {
      const match = ARGS_COMMENT.exec(text.slice(range.pos, range.end));
      if (match) args = JSON.parse(match[1]);
    }
    this.factories.push({
      name: statement.name.text, ...this.position(statement.name), args,
      required: realParameters(statement).filter((p) => !p.initializer && !p.dotDotDotToken && !p.questionToken).length,
    });
  }

  walk(node, scope) {
    if (isFunctionLike(node)) return this.walkFunction(node, scope);
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) return this.walkClass(node, scope);
    if (ts.isBlock(node)) return this.walkBlock(node, scope);
    if (ts.isForStatement(node) || ts.isForInStatement(node) || ts.isForOfStatement(node)) {
      return this.walkFor(node, scope);
    }
    if (ts.isWhileStatement(node) || ts.isDoStatement(node)) {
      this.walk(node.expression, scope);
      return this.walkLoopBody(node.statement, scope, null);
    }
    if (ts.isTryStatement(node)) return this.walkTry(node, scope);
    if (ts.isVariableDeclarationList(node)) return this.walkDeclarations(node, scope);
    if (ts.isCaseBlock(node)) return this.walkCaseBlock(node, scope);
    if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isTypeNode(node)) return undefined;
    if (ts.isEnumDeclaration(node) || ts.isModuleDeclaration(node) || ts.isDecorator(node)) {
      throw new Unsupported(`${ts.SyntaxKind[node.kind]}: TypeScript emits extra functions for it`);
    }
    return ts.forEachChild(node, (child) => { this.walk(child, scope); });
  }

  walkFunction(fn, outer) {
    if (ts.isFunctionDeclaration(fn) && fn.name) this.declare(fn.name, outer);
    const name = fn.name && (ts.isIdentifier(fn.name) || ts.isPrivateIdentifier(fn.name)) ? fn.name.text : null;
    const scope = this.addScope('function', outer, fn.name || fn, { name, arrow: ts.isArrowFunction(fn) });
    if (ts.isFunctionExpression(fn) && fn.name) this.declare(fn.name, scope, true);
    for (const parameter of realParameters(fn)) {
      if (parameter.modifiers?.some((m) => m.kind !== ts.SyntaxKind.Decorator)) {
        throw new Unsupported('parameter properties: TypeScript emits assignments for them');
      }
      for (const id of boundNames(parameter.name)) this.declare(id, scope);
      ts.forEachChild(parameter, (child) => { this.walk(child, scope); });
    }
    let body = scope;
    if (!hasSimpleParameters(fn)) {
      body = this.addScope('body', scope, fn.body, { enteredWith: scope.id, varScope: true });
    }
    this.probes.set(fn.body, { probe: ts.isBlock(fn.body) ? 'entry' : 'wrap-body', scope: body.id });
    if (ts.isBlock(fn.body)) for (const statement of fn.body.statements) this.walk(statement, body);
    else this.walk(fn.body, body);
  }

  walkBlock(block, outer, extra = {}) {
    const scope = this.addScope('block', outer, block, extra);
    this.probes.set(block, { probe: 'entry', scope: scope.id });
    for (const statement of block.statements) this.walk(statement, scope);
    return scope;
  }

  walkLoopBody(statement, outer, head) {
    const extra = head ? { enteredWith: head.id } : {};
    if (ts.isBlock(statement)) return this.walkBlock(statement, outer, extra);
    const scope = this.addScope('block', outer, statement, { ...extra, synthetic: true });
    this.probes.set(statement, { probe: 'wrap-statement', scope: scope.id });
    this.walk(statement, scope);
    return scope;
  }

  walkFor(loop, outer) {
    const init = loop.initializer;
    let head = null;
    if (init && ts.isVariableDeclarationList(init) && isLexical(init)) {
      head = this.addScope('loop', outer, loop, { hasTest: ts.isForStatement(loop) && loop.condition !== undefined });
      if (head.hasTest) this.probes.set(loop.condition, { probe: 'test', scope: head.id });
    }
    const inHead = head || outer;
    if (init) this.walk(init, inHead);
    if (ts.isForStatement(loop)) {
      if (loop.condition) this.walk(loop.condition, inHead);
      if (loop.incrementor) this.walk(loop.incrementor, inHead);
    } else {
      this.walk(loop.expression, outer);
    }
    this.walkLoopBody(loop.statement, inHead, head);
  }

  walkTry(node, scope) {
    this.walk(node.tryBlock, scope);
    const clause = node.catchClause;
    if (clause) {
      const variable = clause.variableDeclaration;
      if (!variable) {
        this.walk(clause.block, scope);
      } else {
        const catchScope = this.addScope('catch', scope, clause);
        const block = this.addScope('block', catchScope, clause.block, { enteredWith: catchScope.id });
        this.probes.set(clause.block, { probe: 'entry', scope: block.id });
        if (ts.isIdentifier(variable.name)) this.declare(variable.name, catchScope);
        else for (const id of boundNames(variable.name)) this.declare(id, block);
        ts.forEachChild(variable.name, (child) => { this.walk(child, block); });
        for (const statement of clause.block.statements) this.walk(statement, block);
      }
    }
    if (node.finallyBlock) this.walk(node.finallyBlock, scope);
  }

  walkDeclarations(list, scope) {
    const target = isLexical(list) ? scope : this.varScopeOf(scope);
    for (const declaration of list.declarations) {
      for (const id of boundNames(declaration.name)) this.declare(id, target);
      ts.forEachChild(declaration, (child) => { this.walk(child, scope); });
    }
  }

  walkCaseBlock(caseBlock, scope) {
    for (const clause of caseBlock.clauses) {
      for (const statement of clause.statements) {
        const lexical = ts.isClassDeclaration(statement) || ts.isFunctionDeclaration(statement)
          || (ts.isVariableStatement(statement) && isLexical(statement.declarationList));
        if (lexical) {
          throw new Unsupported('a declaration directly in a `switch` case: its scope has no place for a probe');
        }
      }
    }
    ts.forEachChild(caseBlock, (child) => { this.walk(child, scope); });
  }

  walkClass(node, outer) {
    if (ts.isClassDeclaration(node) && node.name) this.declare(node.name, outer);
    const scope = this.addScope('class', outer, node.name || node, { name: node.name ? node.name.text : null });
    if (node.name) this.declare(node.name, scope, true);
    if (node.name || ts.isClassExpression(node)) this.probes.set(node, { probe: 'class', scope: scope.id });
    let instanceInit = null;
    let staticInit = null;
    const initializer = (isStatic) => {
      if (isStatic && staticInit === null) {
        staticInit = this.addScope('function', scope, node, { name: '<static_initializer>', synthetic: true });
        scope.alsoEntered.push(staticInit.id);
      }
      if (!isStatic && instanceInit === null) {
        instanceInit = this.addScope('function', scope, node,
          { name: '<instance_members_initializer>', synthetic: true });
      }
      return isStatic ? staticInit : instanceInit;
    };
    for (const clause of node.heritageClauses || []) this.walk(clause, scope);
    for (const member of node.members) {
      const isStatic = (ts.getCombinedModifierFlags(member) & ts.ModifierFlags.Static) !== 0;
      if (ts.isClassStaticBlockDeclaration(member)) {
        this.walkBlock(member.body, initializer(true), { varScope: true });
      } else if (ts.isPropertyDeclaration(member)) {
        if (member.name && ts.isComputedPropertyName(member.name)) this.walk(member.name, scope);
        if (member.initializer) this.walk(member.initializer, initializer(isStatic));
      } else {
        this.walk(member, scope);
      }
    }
  }
}

function probeCall(factory, scope, value) {
  return factory.createCallExpression(factory.createIdentifier(KEEP), undefined, [
    factory.createNumericLiteral(scope),
    value ?? factory.createArrowFunction(undefined, undefined, [], undefined,
      factory.createToken(ts.SyntaxKind.EqualsGreaterThanToken), factory.createNumericLiteral(0)),
  ]);
}

function isPrologue(statement) {
  return ts.isExpressionStatement(statement) && ts.isStringLiteral(statement.expression);
}

/** A `before` transformer that builds the model into `result` and adds the probes. */
function instrumenter(result) {
  return (context) => (sourceFile) => {
    const model = new ScopeModel(sourceFile);
    result.model = model;
    const { factory } = context;
    const probeStatement = (scope, value) => factory.createExpressionStatement(probeCall(factory, scope, value));
    const visit = (node) => {
      const probe = model.probes.get(node);
      const visited = ts.visitEachChild(node, visit, context);
      if (!probe) return visited;
      switch (probe.probe) {
        case 'entry': {
          const statements = [...visited.statements];
          const prologue = statements.findIndex((s) => !isPrologue(s));
          statements.splice(prologue < 0 ? statements.length : prologue, 0, probeStatement(probe.scope));
          return factory.updateBlock(visited, statements);
        }
        case 'wrap-body':
          return factory.createBlock([probeStatement(probe.scope), factory.createReturnStatement(visited)], true);
        case 'wrap-statement':
          return factory.createBlock([probeStatement(probe.scope), visited], true);
        case 'test':
          return factory.createParenthesizedExpression(factory.createComma(probeCall(factory, probe.scope), visited));
        case 'class':
          if (ts.isClassExpression(node)) return probeCall(factory, probe.scope, visited);
          return [visited, probeStatement(probe.scope, factory.createIdentifier(node.name.text))];
        default:
          throw new Error(`unknown probe ${probe.probe}`);
      }
    };
    return ts.visitEachChild(sourceFile, visit, context);
  };
}

const COMPILER_OPTIONS = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.CommonJS,
  useDefineForClassFields: true,
};

/** The JavaScript of a TypeScript source, as is and with probes, and the scope model. */
function instrument(source, fileName) {
  const plain = ts.transpileModule(source, { compilerOptions: COMPILER_OPTIONS, fileName, reportDiagnostics: true });
  const errors = (plain.diagnostics || []).filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errors.length) {
    throw new Unsupported(errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('; '));
  }
  const result = {};
  const probed = ts.transpileModule(source, {
    compilerOptions: COMPILER_OPTIONS, fileName, transformers: { before: [instrumenter(result)] },
  });
  const { scopes, declarations, factories } = result.model;
  return { plain: plain.outputText, probed: probed.outputText, scopes, declarations, factories };
}

module.exports = { instrument, Unsupported, typescriptVersion: ts.version };
