import org.apache.flink.sql.parser.impl.FlinkSqlParserImpl;
import org.apache.calcite.sql.parser.SqlAbstractParserImpl;
import java.io.StringReader;
import java.util.*;
// Prints the reserved (R), non-reserved (N) keywords, context variables (C) and
// reserved function names (F) of the Flink SQL parser in the classpath.
//   unzip -o -q $PYFLINK/lib/flink-table-planner-loader-2.3.0.jar flink-table-planner.jar
//   CP=flink-table-planner.jar:$(ls $PYFLINK/lib/*.jar | tr "\n" :)
//   cp reserved_keywords.java Kw.java && javac -cp "$CP" Kw.java && java -cp "$CP:." Kw > kw.txt
public class Kw {
  public static void main(String[] a) throws Exception {
    SqlAbstractParserImpl p = FlinkSqlParserImpl.FACTORY.getParser(new StringReader(""));
    SqlAbstractParserImpl.Metadata m = p.getMetadata();
    TreeSet<String> res = new TreeSet<>(), non = new TreeSet<>();
    for (String t : m.getTokens()) {
      if (!t.matches("[A-Z][A-Z0-9_]*")) continue;
      if (m.isReservedWord(t)) res.add(t); else if (m.isKeyword(t)) non.add(t);
    }
    System.out.println("RESERVED " + res.size());
    for (String s : res) System.out.println("R " + s);
    for (String s : non) System.out.println("N " + s);
    for (String t : m.getTokens()) { if (m.isContextVariableName(t)) System.out.println("C " + t); if (m.isReservedFunctionName(t)) System.out.println("F " + t); }
  }
}
